import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { RunnerClient } from '@demo-rooms/contract/runner';
import { runnerClientFor } from '../data/runner-fleet.js';
import { buildContentApp, type ContentDeps } from './content/content-app.js';
import { createCopyGateway, type CopyGateway } from './viewer-copies/copy-gateway.js';
import { contentLabelOf } from './origins.js';
import { registerShellAssets } from './shell-assets.js';
import { createStandingCache } from './standing-cache.js';
import { registerRoomEntry } from './viewer/room-entry.routes.js';
import { registerShellEndpoints } from './viewer/shell-endpoints.routes.js';
import { shellGuard } from './viewer/shell-guard.js';
import { registerRoomLogo } from './viewer/room-logo.routes.js';
import { registerRoomPages } from './viewer/room-page.routes.js';

// The room: what viewers meet. On the platform origin, link entry, preview passes, the shell and
// its endpoints; on the content origins, static builds and viewers' own container copies. One
// HTTP server answers all of them and tells them apart by Host, so the room can run inside the
// api (development, tests) or alone (production).

export type RoomDeps = ContentDeps & { runner?: RunnerClient };

/** The room's parts, made once per process and shared by the platform routes and the server. */
export function createRoom(deps: RoomDeps) {
  const runner = deps.runner ?? runnerClientFor(deps.config, deps.sql);
  const standings = createStandingCache(deps.sql);
  let content: Promise<FastifyInstance> | null = null;
  let copies: CopyGateway | null = null;
  const contentApp = () => (content ??= buildContentApp({ ...deps, standings }).then(async (a) => (await a.ready(), a)));
  const copyGateway = () => (copies ??= createCopyGateway({ config: deps.config, sql: deps.sql, runner, standings, log: deps.log }));

  return {
    runner,
    /** The routes on the platform origin. */
    register(app: FastifyInstance) {
      registerRoomEntry(app, { ...deps, runner });
      registerShellEndpoints(app, { ...deps, runner }, shellGuard(deps));
      registerShellAssets(app);
      registerRoomLogo(app, deps);
      registerRoomPages(app, deps);
      // Before the server closes (preClose), not after (onClose): server.close() waits for every
      // socket, upgraded ones too, and only the gateway can end the viewers' open WebSockets.
      app.addHook('preClose', async () => {
        await copies?.close();
      });
      app.addHook('onClose', async () => {
        if (content) await (await content).close();
      });
    },
    /**
     * A fastify serverFactory: content-origin hosts go to the content app, or straight to the
     * viewer's copy (bodies unread, WebSockets upgraded); everything else to the platform app.
     */
    serverFactory(handler: (req: IncomingMessage, res: ServerResponse) => void) {
      const server = createServer((req, res) => {
        const label = contentLabelOf(deps.config, req.headers.host);
        if (!label) return handler(req, res);
        const toCopy = label.copy && !req.url?.startsWith('/__pp/');
        const served = toCopy ? copyGateway().web(req, res, label) : contentApp().then((app) => app.routing(req, res));
        served.catch((err) => fail(res, err));
      });
      server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
        const label = contentLabelOf(deps.config, req.headers.host);
        if (!label?.copy) return void socket.destroy();
        copyGateway()
          .ws(req, socket, head, label)
          .catch(() => socket.destroy());
      });
      function fail(res: ServerResponse, err: unknown) {
        deps.log.error({ err }, 'room content failed');
        if (res.headersSent) return void res.destroy();
        res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
        res.end('The demo is not answering right now.\n');
      }
      return server;
    },
  };
}
