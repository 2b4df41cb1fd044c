import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Sql } from '../../core/infra/db.js';
import { Refusal } from '../../core/rules/errors.js';
import { etagMatches } from '../../core/infra/http/send-stored-image.js';
import { isUuid } from '../../core/infra/ids.js';
import { renderStoredPage } from '../../core/infra/room-pages/page-renderer.js';
import { workspaceLook } from '../../data/brand-look.js';
import { pageBody, pageHeadIn, storePageHtml } from '../../data/room-pages.sql.js';
import { sessionStanding } from '../../data/room-sessions.sql.js';
import { escapeHtml } from '../html.js';
import { lookStyle } from './room-look.js';
import { cookieSession } from './shell-guard.js';

// Each room page at its own address, loaded into its sandboxed frame when its tab first opens
// (shell.js), so the shell carries none of them. The HTML was rendered and sanitised once, when
// the page was added (setup.service.ts addPage), and is sent as stored, with an ETag: a frame
// opened again costs a 304. A page stored before pages kept their HTML is rendered on its first
// request, off the event loop, and written back.

/**
 * What a page may do where it lands, even opened on its own: nothing but show itself. Its
 * sanitised HTML keeps images (https, http and data, as the sanitiser allows) and inline style;
 * the CSP sandbox takes this origin's rights away; only the room's own page may frame it.
 */
const pagePolicy = [
  "default-src 'none'",
  'img-src https: http: data:',
  "style-src 'unsafe-inline'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
  'sandbox allow-popups allow-popups-to-escape-sandbox',
].join('; ');

export function registerRoomPages(app: FastifyInstance, deps: { sql: Sql }) {
  const { sql } = deps;

  // A GET the page's own frame makes (no Origin): the session's cookie and its standing, as every
  // room address checks, and a page of that session's own project; anything else is Not found.
  app.get('/room/:sessionId/pages/:pageId', async (req, reply) => {
    const { pageId } = req.params as { pageId: string };
    reply.header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer');
    const session = isUuid(pageId) ? await cookieSession(sql, req) : null;
    const standing = session && (await sessionStanding(sql, session.id));
    const head = standing && !standing.ownerPaused ? await pageHeadIn(sql, standing.projectId, pageId) : null;
    if (!session || !head) return reply.status(404).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send('Not found');

    // The document is the stored HTML in the room's look: its ETag covers all three.
    const style = lookStyle((await workspaceLook(sql, session.workspaceId)).drawn.look);
    const tagOf = (htmlHash: string) => `"${createHash('sha256').update(`${htmlHash}\n${head.title}\n${style}`).digest('base64url')}"`;
    reply.header('cache-control', 'private, no-cache').header('content-security-policy', pagePolicy);
    if (head.htmlHash && etagMatches(req.headers['if-none-match'], tagOf(head.htmlHash))) return reply.status(304).send();

    const body = await pageBody(sql, head.id);
    if (!body) return reply.status(404).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send('Not found');
    let page = body.html !== null && body.htmlHash !== null ? { html: body.html, hash: body.htmlHash } : null;
    if (!page) {
      try {
        page = await renderStoredPage(body.kind, body.content ?? '', req.ip);
      } catch (err) {
        if (!(err instanceof Refusal)) throw err;
        // The renderer is full (or the page too large for it): the frame says so, and may ask again.
        if (err.extra.retryAfter) reply.header('retry-after', String(err.extra.retryAfter));
        return reply
          .status(err.status)
          .header('cache-control', 'no-store')
          .type('text/plain; charset=utf-8')
          .send(err.status === 503 ? 'This page is being prepared. Reload in a few seconds.' : 'This page could not be shown.');
      }
      await storePageHtml(sql, head.id, body.version, { html: page.html, htmlHash: page.hash });
    }
    return reply
      .status(200)
      .header('etag', tagOf(page.hash))
      .type('text/html; charset=utf-8')
      .send(pageDocument(head.title, page.html, style));
  });
}

/** A room page in its frame, in the room's look (`style`: room-look.ts). */
const pageDocument = (title: string, html: string, style: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>${style}<style>body{font:16px/1.55 var(--font);max-width:46rem;margin:2rem auto;padding:0 1rem;color:var(--text);background:var(--surface)}a{color:var(--text)}img{max-width:100%}pre{overflow:auto;background:var(--background);padding:.75rem;border-radius:var(--radius)}</style></head><body>${html}</body></html>`;
