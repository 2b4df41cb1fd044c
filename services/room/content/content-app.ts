import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import cookie from '@fastify/cookie';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Config } from '../../core/infra/config.js';
import type { Sql } from '../../core/infra/db.js';
import type { Logger } from '../../core/infra/log.js';
import type { Storage } from '../../core/infra/storage.js';
import { trustProxyOption } from '../../core/infra/trust-proxy.js';
import { registerLoadShedding } from '../../core/infra/http/load-shedding.js';
import { logRequests, requestLogging } from '../../core/infra/http/request-log.js';
import { notFoundPage, noticePage } from '../html.js';
import type { StandingCache } from '../standing-cache.js';
import { contentLabelOf, staticLabelOf, type ContentLabel } from '../origins.js';
import { spendGrant } from '../../data/content-grants.sql.js';
import { roomScript } from '../room-scripts.js';
import { CAPTURE_LIBRARY_PATH, FRAME_HELPER_PATH, frameHelperTag, isDocumentRequest } from './frame-helper-tag.js';
import { createStaticFiles, parseRange, type StaticFiles } from './static-files.js';
import { isServiceWorkerScript, SERVICE_WORKER_REFUSED } from './service-worker-refusal.js';
import { CLEAR_SITE_DATA, viewCookie, viewSeconds, viewTokens } from './view-token.js';
import { VIEWER_SCRIPT_PATH, viewerScript } from './viewer-script.js';
import { personalises } from '../personal.js';

// The content origins: where a build's own code runs, never on the platform origin. A request is
// served only with this origin's view cookie, obtained by spending a grant the room shell minted
// for the viewer's session; the session's standing (link open, project not paused or gone) is
// checked again every few seconds, so a revoke stops a viewer already in.

// Built from frame-helper.ts (room-scripts.ts).
const frameHelper = roomScript('frame-helper.js');

// The screenshot library the helper imports when a comment first asks for a picture:
// modern-screenshot's ES module build (an import keeps it off the page's globals, where its UMD
// build would meet a page's own AMD `define`). Gzipped once here: 54 KB plain, about 15 KB so.
const captureLibrary = (() => {
  const plain = readFileSync(createRequire(import.meta.url).resolve('modern-screenshot/dist/index.mjs'));
  return { plain, gzip: gzipSync(plain, { level: 9 }), etag: `"${createHash('sha256').update(plain).digest('base64url').slice(0, 16)}"` };
})();

export type ContentDeps = { config: Config; sql: Sql; storage: Storage; log: Logger };

export async function buildContentApp(deps: ContentDeps & { standings: StandingCache }): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log.child({ part: 'content' }) as unknown as FastifyBaseLogger,
    trustProxy: trustProxyOption(deps.config.TRUST_PROXY),
    ...requestLogging(),
  });
  logRequests(app);
  // Its own sampler, on the same event loop as the room's: the content origins shed with it.
  await registerLoadShedding(app, deps.config);
  await app.register(cookie);
  const tokens = viewTokens(deps.config.APP_SECRET);
  // Every HTML document gets the room's frame helper (story rings, comment screenshots), told the room's origin.
  const files = createStaticFiles(deps.storage, { htmlHead: () => frameHelperTag(new URL(deps.config.publicUrl).origin) });

  app.decorateRequest('content', null);
  app.addHook('onRequest', async (req, reply) => {
    // Only the room shell may frame a build; nothing of it may be sniffed into another type.
    reply.header('content-security-policy', `frame-ancestors ${new URL(deps.config.publicUrl).origin}`);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'same-origin');
    const label = contentLabelOf(deps.config, req.headers.host);
    if (!label) return notFound(reply);
    (req as ContentRequest).content = label;
  });

  // The helper is the same for every build and viewer: no session needed to read it.
  app.get(FRAME_HELPER_PATH, async (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(frameHelper),
  );
  app.get(CAPTURE_LIBRARY_PATH, async (req, reply) => {
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .header('etag', captureLibrary.etag)
      .header('vary', 'accept-encoding');
    if (etagMatches(req.headers['if-none-match'], captureLibrary.etag)) return reply.status(304).send();
    if (!/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) return reply.send(captureLibrary.plain);
    return reply.header('content-encoding', 'gzip').send(captureLibrary.gzip);
  });

  app.get('/__pp/enter', async (req, reply) => {
    const label = (req as ContentRequest).content!;
    const { g, to } = req.query as { g?: string; to?: string };
    const sessionId = await spendGrant(deps.sql, g ?? '', label.label);
    if (!sessionId) return notFound(reply);
    // Partitioned and SameSite=None: the origin is framed by the shell, a different site, and
    // browsers keep such a cookie only in that frame's partition. Secure is honoured on http for
    // *.localhost, and production origins are https.
    reply.setCookie(viewCookie, tokens.sign(sessionId, label.label), {
      path: '/',
      httpOnly: true,
      secure: true,
      sameSite: 'none',
      partitioned: true,
      maxAge: viewSeconds,
    });
    return reply.redirect(safeTarget(to), 303);
  });

  // Who is viewing, for a static build that asked (manifest `personalise`; viewer-script.ts): made
  // per viewer from their own cookie, never cached. Any other build has no such file.
  app.get(VIEWER_SCRIPT_PATH, async (req, reply) => {
    const label = (req as ContentRequest).content!;
    const sessionId = tokens.check(req.cookies[viewCookie], label.label);
    const standing = sessionId ? await deps.standings.get(sessionId) : null;
    if (!standing || label.copy || staticLabelOf(standing.slug, standing.projectId) !== label.label) return notFound(reply);
    if (standing.kind !== 'static' || !personalises(standing.manifest)) return notFound(reply);
    return reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-store').send(viewerScript(standing));
  });

  app.route({
    method: ['GET', 'HEAD'],
    url: '/*',
    handler: async (req, reply) => {
      const label = (req as ContentRequest).content!;
      const sessionId = tokens.check(req.cookies[viewCookie], label.label);
      const standing = sessionId ? await deps.standings.get(sessionId) : null;
      // A viewer whose way in ended (link revoked or expired, project deleted or taken down,
      // session over) leaves nothing behind on this origin: no service worker still serving the
      // build, no storage, no cookie.
      if (sessionId && !standing) return notFound(reply.header('clear-site-data', CLEAR_SITE_DATA));
      if (!standing || staticLabelOf(standing.slug, standing.projectId) !== label.label) return notFound(reply);
      if (standing.ownerPaused)
        return reply
          .status(423)
          .type('text/html; charset=utf-8')
          .send(noticePage('Demo', 'Paused', ['The owner paused this demo. Go back to the room for their note.']));
      if (label.copy || standing.kind !== 'static' || !standing.liveBuildId) return notFound(reply);
      if (isServiceWorkerScript(req.headers))
        return reply.status(403).type('text/plain; charset=utf-8').header('cache-control', 'no-store').send(SERVICE_WORKER_REFUSED);
      return serveFile(files, standing.liveBuildId, req, reply);
    },
  });
  app.setNotFoundHandler((_req, reply) => notFound(reply));
  return app;
}

type ContentRequest = FastifyRequest & { content: ContentLabel | null };

async function serveFile(files: StaticFiles, buildId: string, req: FastifyRequest, reply: FastifyReply) {
  const urlPath = req.url.split('?')[0];
  const found = await files.find(buildId, urlPath, { document: isDocumentRequest(req.headers) });
  if (found.kind === 'missing') return notFound(reply);
  if (found.kind === 'folder')
    return reply.redirect(found.location + (req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : ''), 301);

  const { entry } = found;
  reply.header('etag', entry.etag);
  reply.header('accept-ranges', found.whole ? 'none' : 'bytes');
  // A live build can change under the same address: always revalidate, cheaply, by ETag.
  reply.header('cache-control', 'no-cache');
  // An HTML file is sent with the helper to a document load, as it is to the app's own fetch.
  reply.header('vary', /^text\/html/.test(found.type) ? 'accept-encoding, sec-fetch-dest, accept' : 'accept-encoding');
  reply.type(found.type);
  if (etagMatches(req.headers['if-none-match'], entry.etag)) return reply.status(304).send();

  const range = found.whole
    ? null
    : parseRange(req.headers['if-range'] && req.headers['if-range'] !== entry.etag ? undefined : req.headers.range, entry.size);
  if (range === 'unsatisfiable') return reply.status(416).header('content-range', `bytes */${entry.size}`).send();
  const body = await files.body(buildId, found, { acceptEncoding: req.headers['accept-encoding'], range });
  if (range) reply.status(206).header('content-range', `bytes ${range.start}-${range.end}/${entry.size}`);
  if (body.kind === 'buffer') {
    if (body.encoding) reply.header('content-encoding', body.encoding);
    reply.header('content-length', body.bytes.length);
    return reply.send(req.method === 'HEAD' ? undefined : body.bytes);
  }
  if (body.size !== null) reply.header('content-length', body.size);
  if (req.method === 'HEAD') {
    body.stream.destroy();
    return reply.send();
  }
  return reply.send(body.stream);
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/** Where /__pp/enter may send the viewer: a path on this same origin, nothing else. */
export function safeTarget(to: string | undefined): string {
  if (!to || !to.startsWith('/') || to.startsWith('//') || to.startsWith('/\\') || /[\s\\]/.test(to)) return '/';
  return to;
}

function notFound(reply: FastifyReply) {
  return reply.status(404).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(notFoundPage);
}
