import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../core/config.js';
import { buildContentApp, type ContentDeps } from './content/content-app.js';
import { contentLabelOf } from './origins.js';
import { registerShellAssets } from './shell-assets.js';
import { registerViewerRoutes } from './viewer/viewer-routes.js';

// The room: what viewers meet. On the platform origin, link entry, preview passes, the shell and
// its endpoints; on the content origins, the builds themselves. One HTTP server answers both and
// tells them apart by Host, so the room can run inside the api (development, tests) or alone.

/** The room's routes on the platform origin. */
export function registerRoom(app: FastifyInstance, deps: ContentDeps) {
  registerViewerRoutes(app, deps);
  registerShellAssets(app);
}

/**
 * A fastify serverFactory that sends content-origin hosts to the content app and everything else
 * to the platform app. The content app is built lazily, before the first request it serves.
 */
export function roomServerFactory(config: Config, content: () => Promise<FastifyInstance>) {
  return (handler: (req: IncomingMessage, res: ServerResponse) => void) =>
    createServer((req, res) => {
      if (!contentLabelOf(config, req.headers.host)) return handler(req, res);
      content().then((app) => app.routing(req, res), () => {
        res.statusCode = 500;
        res.end('internal error');
      });
    });
}

/** The content app, built once and shared. */
export function lazyContentApp(deps: ContentDeps) {
  let app: Promise<FastifyInstance> | null = null;
  return () => (app ??= buildContentApp(deps).then(async (a) => (await a.ready(), a)));
}
