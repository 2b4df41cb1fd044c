import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from '../log.js';
import { opsPlugin, type OpsOptions } from './ops.plugin.js';

/**
 * A small HTTP listener for a process that serves nothing else (the workers): `/healthz` (the
 * process is up), `/readyz` and the operator's `/ops/*`. Never listens: main.ts does that.
 */
export async function buildOpsServer(opts: OpsOptions & { log: Logger; service: string }): Promise<FastifyInstance> {
  const { log, service, ...ops } = opts;
  // Scrapes and probes arrive every few seconds: their request lines (info) would bury the jobs'
  // own, so this listener logs from warn up.
  const app = Fastify({ loggerInstance: log.child({}, { level: 'warn' }) as unknown as FastifyBaseLogger });
  app.get('/healthz', async () => ({ ok: true, service }));
  await app.register(opsPlugin, ops);
  return app;
}
