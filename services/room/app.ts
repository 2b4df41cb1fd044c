import cookie from '@fastify/cookie';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { createRoom, type RoomDeps } from './room-server.js';
import { trustProxyOption } from '../core/infra/trust-proxy.js';
import { headroomCheck, registerLoadShedding } from '../core/infra/http/load-shedding.js';
import { checkReadiness } from '../core/infra/http/readiness.js';
import { logRequests, requestLogging } from '../core/infra/http/request-log.js';
import { fitLoadBalancer } from '../core/infra/http/server-timeouts.js';

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
    ...requestLogging(),
    trustProxy: trustProxyOption(deps.config.TRUST_PROXY),
  });
  fitLoadBalancer(app.server);
  logRequests(app);
  await registerLoadShedding(app, deps.config);
  await app.register(cookie);
  app.get('/healthz', async () => ({ ok: true, service: 'demo-rooms-room' }));
  const ready = { postgres: () => deps.sql`select 1`.execute(), headroom: headroomCheck(app) };
  app.get('/readyz', async (_req, reply) => {
    const readiness = await checkReadiness(ready);
    return reply
      .status(readiness.ok ? 200 : 503)
      .header('cache-control', 'no-store')
      .send(readiness);
  });
  room.register(app);
  app.setNotFoundHandler((_req, reply) => reply.status(404).type('text/plain').send('Not found'));
  return app;
}
