import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { fastifyCookie } from '@fastify/cookie';
import { LRUCache } from 'lru-cache';
import type { Config } from '../../core/infra/config.js';
import type { Sql } from '../../core/infra/db.js';
import type { Logger } from '../../core/infra/log.js';
import { throttledActivity, type CopyView, type RunnerClient } from '@demo-rooms/contract/runner';
import { isServiceWorkerScript, refuseServiceWorker } from '../content/service-worker-refusal.js';
import { CLEAR_SITE_DATA, viewCookie, viewTokens } from '../content/view-token.js';
import { createCopyWay } from './copy-way.js';
import { createGatewayProxy, ROOM_COOKIES } from './copy-gateway-proxy.js';
import { personalHeaders } from '../personal.js';
import { notFoundPage, noticePage } from '../html.js';
import type { StandingCache } from '../standing-cache.js';
import { copyLabelOf, type ContentLabel } from '../origins.js';
import { copyNotice } from './copy-states.js';
import { mayUseCopy, watchSocketStandings } from './socket-standing-watch.js';

// A viewer's copy origin (`<slug>--v<session>`): every request and WebSocket, whatever its
// method, goes to that session's own copy, and to no other. The cookie names the session and is
// valid for this label only; the label is derived from the session, so a cookie cannot be
// replayed onto another viewer's copy. Bodies pass straight through, but for the HTML a page load
// gets, which carries the room's frame helper (copy-forward.ts) when the copy's own
// Content-Security-Policy lets it run; whether it does is recorded for the session's comments.

export { ROOM_COOKIES };

/** How long the runner's answer about a session's copy is reused between requests. */
const targetMs = 2_000;

export function createCopyGateway(deps: { config: Config; sql: Sql; runner: RunnerClient; standings: StandingCache; log: Logger }) {
  const tokens = viewTokens(deps.config.APP_SECRET);
  const way = createCopyWay(deps);
  const { hopTo, copyTokenCookie } = way;
  const hops = way.hops;
  const activity = throttledActivity((sessionId) => deps.runner.activity(sessionId));
  const views = new LRUCache<string, CopyView>({ max: 50_000, ttl: targetMs });
  const frameAncestors = new URL(deps.config.publicUrl).origin;
  /** The copy origin (slug) each session's open WebSockets came through, for the standing watch. */
  const socketSlugs = new Map<string, string>();
  const { proxy, settled } = createGatewayProxy({
    ...deps,
    frameAncestors,
    activity,
    forgetCopy: (sessionId) => views.delete(sessionId),
    socketSlugs,
  });

  const watch = watchSocketStandings({ proxy, standings: deps.standings, slugOf: (id) => socketSlugs.get(id), log: deps.log });

  /** The session's running copy, waking it when paused: its view, and its id while it runs. */
  async function runningCopy(sessionId: string): Promise<{ view: CopyView; copyId: string | null }> {
    let view = views.get(sessionId) ?? (await deps.runner.copy(sessionId));
    if (view.state === 'paused') {
      view = await deps.runner.activity(sessionId);
      if (view.state !== 'running') view = await deps.runner.copy(sessionId, { seen: view.version, waitMs: 5_000 });
    }
    if (view.state === 'running' && view.copyId) {
      views.set(sessionId, view);
      return { view, copyId: view.copyId };
    }
    views.delete(sessionId);
    return { view, copyId: null };
  }

  /**
   * The session a request to `label` may act for, or null; with the headers that tell its copy who
   * the viewer is (none unless the build personalises, personal.ts).
   */
  async function sessionFor(
    req: IncomingMessage,
    label: ContentLabel,
  ): Promise<{ sessionId: string | null; ended: boolean; viewerHeaders: Record<string, string> }> {
    const sessionId = tokens.check(req.headers.cookie ? fastifyCookie.parse(req.headers.cookie)[viewCookie] : undefined, label.label);
    if (!sessionId || copyLabelOf(label.slug, sessionId) !== label.label) return { sessionId: null, ended: false, viewerHeaders: {} };
    const standing = await deps.standings.get(sessionId);
    const may = mayUseCopy(standing, label.slug);
    return {
      sessionId: may ? sessionId : null,
      ended: standing === null,
      viewerHeaders: may ? personalHeaders(standing, standing?.manifest) : {},
    };
  }

  return {
    async web(req: IncomingMessage, res: ServerResponse, label: ContentLabel) {
      res.setHeader('content-security-policy', `frame-ancestors ${frameAncestors}`);
      res.setHeader('x-content-type-options', 'nosniff');
      const { sessionId, ended, viewerHeaders } = await sessionFor(req, label);
      // The viewer's way in ended: the copy's origin keeps nothing of theirs (content-app.ts).
      if (!sessionId) return sendNotFound(res, ended ? { 'clear-site-data': CLEAR_SITE_DATA } : {});
      // No service worker of the copy's may outlive the viewer's standing (service-worker-refusal.ts).
      if (isServiceWorkerScript(req.headers)) return refuseServiceWorker(res);
      // Sent to a data plane that had no route for the copy (stopped or revoked since): not again.
      const cameBack = hops.cameBack(req.headers);
      if (cameBack) views.delete(sessionId);
      const { view, copyId } = await runningCopy(sessionId);
      const hop = copyId && !cameBack ? await hopTo(req, sessionId, copyId, viewerHeaders) : null;
      if (!hop) {
        const notice = copyId ? { title: 'The demo is not answering', message: 'Reload in a moment.' } : copyNotice(view);
        res.writeHead(503, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'retry-after': '2' });
        return res.end(noticePage('Demo', notice.title, [notice.message]));
      }
      proxy.web(req, res, {
        ...hop,
        sessionId,
        originLabel: label.label,
        viewerHeaders,
        roomCookies: copyTokenCookie(sessionId, view, viewerHeaders),
      });
    },

    async ws(req: IncomingMessage, socket: Duplex, head: Buffer, label: ContentLabel) {
      const { sessionId, viewerHeaders } = await sessionFor(req, label);
      const copy = sessionId && !hops.cameBack(req.headers) ? await runningCopy(sessionId) : null;
      const hop = sessionId && copy?.copyId ? await hopTo(req, sessionId, copy.copyId, viewerHeaders) : null;
      if (!sessionId || !hop) {
        socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
        return;
      }
      socketSlugs.set(sessionId, label.slug);
      // After the proxy's own close handler has let go of the socket.
      socket.once('close', () =>
        setImmediate(() => {
          if (!proxy.sessionsWithSockets().includes(sessionId)) socketSlugs.delete(sessionId);
        }),
      );
      proxy.ws(req, socket, head, { ...hop, sessionId, viewerHeaders });
    },

    close: async () => {
      watch.stop();
      proxy.close();
      await settled();
    },
  };
}

export type CopyGateway = ReturnType<typeof createCopyGateway>;

function sendNotFound(res: ServerResponse, extra: Record<string, string> = {}) {
  res.writeHead(404, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...extra });
  res.end(notFoundPage);
}
