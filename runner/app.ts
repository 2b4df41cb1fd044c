import Docker from 'dockerode';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from '../services/core/log.js';

/** The runner's internal HTTP face. It is the only part of the platform that talks to the engine. */
export function buildRunner(deps: { docker: Docker; log: Logger }): FastifyInstance {
  const app = Fastify({ loggerInstance: deps.log as unknown as FastifyBaseLogger });
  app.get('/healthz', async () => ({ ok: true, service: 'demo-rooms-runner' }));
  app.get('/readyz', async (_req, reply) => {
    try {
      await deps.docker.ping();
      return { ok: true, engine: true };
    } catch {
      return reply.status(503).send({ ok: false, engine: false });
    }
  });
  return app;
}

/** dockerode from DOCKER_HOST (`unix:///path` or `tcp://host:port`), else the default socket. */
export function dockerFrom(host?: string): Docker {
  if (!host) return new Docker();
  if (host.startsWith('unix://')) return new Docker({ socketPath: host.slice('unix://'.length) });
  const u = new URL(host.replace(/^tcp:/, 'http:'));
  return new Docker({ host: u.hostname, port: Number(u.port || 2375) });
}
