import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifySchemaCompiler } from 'fastify';
import { hasZodFastifySchemaValidationErrors, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Logger } from '../services/core/infra/log.js';
import { opsPlugin } from '../services/core/infra/http/ops.plugin.js';
import { logRequests, requestLogging } from '../services/core/infra/http/request-log.js';
import { callerClosed, serveH1AndH2c } from '../services/core/infra/http/h2c.js';
import { fitLoadBalancer } from '../services/core/infra/http/server-timeouts.js';
import {
  CallsBody,
  EnterBody,
  PrepareQuery,
  UsageReconcileBody,
  Uuid,
  WaitQuery,
  RUNNER_KEY_HEADER,
  keyMatches,
  RunnerRefusal,
  RUNNER_DEADLINE_HEADER,
} from '@demo-rooms/contract/runner';
import type { CopyEngine } from './engine/copy-engine.js';
import type { RunnerService } from './service/runner-service.js';
import { reconcileUsage } from './loops/usage-reconcile.js';

export { dockerFrom } from './engine/docker/docker-calls.js';

// The runner's internal HTTP face (loopback, RUNNER_PORT), documented in docs/runner.md.
// Everything but /healthz and /readyz needs the runner key (runner-key.ts); the operator's
// /ops/metrics needs OPS_TOKEN as in every process.

export interface RunnerAppDeps {
  engine: Pick<CopyEngine, 'ping'>;
  log: Logger;
  /** Without a service the app answers health only (a runner still starting, or tests of the shell). */
  service?: RunnerService;
  key?: string;
  opsToken?: string;
}

const SessionParams = z.object({ sessionId: Uuid });
const BuildParams = z.object({ buildId: Uuid });

// A POST without a body is checked as an empty one, so the answer names each missing field.
const validate: FastifySchemaCompiler<z.ZodType> = (route) => {
  const check = validatorCompiler(route);
  return route.httpPart === 'body' ? (data) => check(data ?? {}) : check;
};

/** What does not fit, one `field: problem` per issue, as the room's client shows it. */
function invalid(issues: { instancePath: string; message?: string }[]) {
  return {
    error: 'invalid',
    detail: issues.map((i) => `${i.instancePath.slice(1).replaceAll('/', '.') || 'body'}: ${i.message}`).join('; '),
  };
}

export async function buildRunner(deps: RunnerAppDeps): Promise<FastifyInstance> {
  // HTTP/1.1 and h2c on one port: the room's client holds a crowd's calls as streams of a few
  // connections (services/core/infra/http/h2c.ts).
  const app = Fastify({ loggerInstance: deps.log as unknown as FastifyBaseLogger, ...requestLogging(), serverFactory: serveH1AndH2c });
  fitLoadBalancer(app.server);
  logRequests(app);
  await app.register(opsPlugin, { token: deps.opsToken });
  app.get('/healthz', async () => ({ ok: true, service: 'demo-rooms-runner' }));
  app.get('/readyz', async (_req, reply) => {
    try {
      await deps.engine.ping();
    } catch {
      return reply.status(503).send({ ok: false, engine: false });
    }
    // A runner that starts no copies for want of its host guard is not ready, and says why.
    const guard = deps.service?.ctx.hostGuard;
    if (guard && !guard.copies) return reply.status(503).send({ ok: false, engine: true, hostGuard: guard.refusal });
    return { ok: true, engine: true };
  });

  const service = deps.service;
  if (!service || !deps.key) return app;
  const key = deps.key;

  await app.register(
    async (scope) => {
      const api = scope.withTypeProvider<ZodTypeProvider>();
      api.setValidatorCompiler(validate);
      api.addHook('onRequest', async (req, reply) => {
        if (!keyMatches(req.headers[RUNNER_KEY_HEADER], key)) return reply.status(401).send({ error: 'runner key required' });
      });
      api.setErrorHandler((err, req, reply) => {
        if (err instanceof RunnerRefusal)
          return reply.status(err.status).send({ error: err.message, ...(err.copy ? { copy: err.copy } : {}) });
        if (hasZodFastifySchemaValidationErrors(err)) return reply.status(400).send(invalid(err.validation));
        if ((err as { statusCode?: number }).statusCode === 400)
          return reply.status(400).send({ error: 'invalid', detail: (err as Error).message });
        req.log.error({ err }, 'runner request failed');
        return reply.status(500).send({ error: 'internal error' });
      });

      /** Enter: the session's copy (idempotent: the same session gets its same copy). `?wait=ms` waits for it to settle (a fresh admission at most 250 ms: session-entry.ts). */
      api.post('/sessions/:sessionId/copy', { schema: { params: SessionParams, body: EnterBody, querystring: WaitQuery } }, async (req) => {
        // A caller that gave up starts nothing with an ask still waiting to be decided: it closed the
        // connection or stream, or its deadline has passed (a loop too busy to have seen the close, or to have
        // read the request for a while, would not know otherwise).
        const deadline = Number(req.headers[RUNNER_DEADLINE_HEADER]);
        const gone = () => callerClosed(req.raw) || (deadline > 0 && Date.now() > deadline);
        return service.enterAndWait(req.params.sessionId, req.body, req.query.wait ?? 0, gone);
      });

      /** The session's copy now, or (with `wait` and `seen`) once it has changed. */
      api.get('/sessions/:sessionId/copy', { schema: { params: SessionParams, querystring: WaitQuery } }, async (req) =>
        service.watch(req.params.sessionId, req.query.wait ?? 0, req.query.seen),
      );

      /** Heartbeat of the room shell and the proxy: keeps the copy from idling; wakes a paused one. */
      api.post('/sessions/:sessionId/activity', { schema: { params: SessionParams } }, async (req) =>
        service.activity(req.params.sessionId),
      );

      /** Controls and story calls, in order, on the session's own copy. */
      api.post('/sessions/:sessionId/calls', { schema: { params: SessionParams, body: CallsBody } }, async (req) =>
        service.calls(req.params.sessionId, req.body.calls),
      );

      /** The viewer left: the copy goes (or the place in the queue). */
      api.delete('/sessions/:sessionId/copy', { schema: { params: SessionParams } }, async (req) => service.leave(req.params.sessionId));

      /** A build went live: load its image and fill its warm pool ahead of viewers. */
      api.post('/builds/:buildId/prepare', { schema: { params: BuildParams, querystring: PrepareQuery } }, async (req) =>
        service.prepare(req.params.buildId, req.query.wait ?? 0),
      );
      /** The operator's usage reconciliation (`npm run ops -- usage reconcile`): this host's billed seconds against its engine's record. */
      api.post('/usage/reconcile', { schema: { body: UsageReconcileBody } }, async (req) =>
        reconcileUsage(service.ctx, { since: new Date(req.body.since) }),
      );
      // The room long-polls and heartbeats all day: those requests are not news in the log.
    },
    { logLevel: 'warn' },
  );
  return app;
}
