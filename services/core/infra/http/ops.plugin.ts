import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Config } from '../config.js';
import type { Sql } from '../db.js';
import { registry } from '../metrics.js';
import type { Queues } from '../queues.js';
import type { Storage } from '../storage.js';
import { operatorOnly } from './operator-auth.js';
import { registerQueueDashboard } from './queue-dashboard.js';
import { collectQueueDepths } from './queue-depth.js';
import { checkReadiness, platformChecks, type ReadinessChecks } from './readiness.js';
import { observeLatency } from './request-latency.js';

export interface OpsOptions {
  /** OPS_TOKEN. Without it every /ops request is refused. */
  token: string | undefined;
  /** The job queues: shown at /ops/queues and counted in queue_jobs. The runner has none. */
  queues?: Queues;
  /** Readiness checks served at /readyz; a process with its own /readyz (the runner) gives none. */
  ready?: ReadinessChecks;
}

/**
 * The operations face of a process: request latency for every route of the app it is registered
 * in, `/readyz`, and behind the operator token `/ops/metrics` (Prometheus text) and
 * `/ops/queues` (bull-board). Register it before the app's routes so the latency hook sees them.
 */
const ops: FastifyPluginAsync<OpsOptions> = async (app, opts) => {
  app.addHook('onResponse', observeLatency);
  if (opts.ready) {
    const checks = opts.ready;
    app.get('/readyz', async (_req, reply) => {
      const readiness = await checkReadiness(checks);
      return reply
        .status(readiness.ok ? 200 : 503)
        .header('cache-control', 'no-store')
        .send(readiness);
    });
  }
  await app.register(
    async (scope: FastifyInstance) => {
      scope.addHook('onRequest', operatorOnly(opts.token));
      scope.get('/metrics', async (req, reply) => {
        if (opts.queues)
          await collectQueueDepths(opts.queues).catch((err: Error) => req.log.warn({ err: err.message }, 'queue depths not collected'));
        return reply
          .type(registry.contentType)
          .header('cache-control', 'no-store')
          .send(await registry.metrics());
      });
      if (opts.queues) await registerQueueDashboard(scope, opts.queues, { prefix: '/queues', basePath: '/ops/queues' });
    },
    { prefix: '/ops' },
  );
};
// Like fastify-plugin: no encapsulation, so the latency hook and /readyz belong to the app the
// plugin is registered in (the /ops scope inside keeps the operator check to itself).
(ops as unknown as Record<symbol, boolean>)[Symbol.for('skip-override')] = true;

export const opsPlugin = ops;

/** The plugin's options in the api: the catalog's queues, and readiness of Postgres, Redis and S3, plus `more` (the api's headroom). */
export function opsOptions(
  deps: { config: Pick<Config, 'OPS_TOKEN'>; sql: Sql; storage: Storage; queues: Queues },
  more: ReadinessChecks = {},
): OpsOptions {
  return { token: deps.config.OPS_TOKEN, queues: deps.queues, ready: { ...platformChecks(deps), ...more } };
}
