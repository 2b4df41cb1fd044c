import cookie from '@fastify/cookie';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { createRoom, type RoomDeps } from './room-server.js';
import { trustProxyOption } from '../core/trust-proxy.js';

/**
 * The room on its own, as production runs it: the load balancer sends `/r/`, `/preview/`, `/p/`
 * and `/room/` on the platform origin, and every content-origin host, here. (In development the api
 * serves the same routes itself.)
 */
export async function buildRoomApp(deps: RoomDeps): Promise<FastifyInstance> {
  const room = createRoom(deps);
  const app = Fastify({
    serverFactory: room.serverFactory,
    loggerInstance: deps.log as unknown as FastifyBaseLogger,
    trustProxy: trustProxyOption(deps.config.TRUST_PROXY),
  });
  await app.register(cookie);
  app.get('/healthz', async () => ({ ok: true, service: 'demo-rooms-room' }));
  app.get('/readyz', async (_req, reply) => {
    try {
      await deps.sql`select 1`;
      return { ok: true };
    } catch {
      return reply.status(503).send({ ok: false });
    }
  });
  room.register(app);
  app.setNotFoundHandler((_req, reply) => reply.status(404).type('text/plain').send('Not found'));
  return app;
}
