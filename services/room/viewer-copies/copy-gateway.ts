import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { fastifyCookie } from '@fastify/cookie';
import { LRUCache } from 'lru-cache';
import type { Config } from '../../core/config.js';
import type { Sql } from '../../core/db.js';
import type { Logger } from '../../core/log.js';
import { throttledActivity, type CopyView, type RunnerClient } from '../../contract/runner/runner-client.js';
import { agentAllowedBy } from '../content/capture-policy.js';
import { frameHelperTag } from '../content/frame-helper-tag.js';
import { isServiceWorkerScript, refuseServiceWorker } from '../content/service-worker-refusal.js';
import { CLEAR_SITE_DATA, viewCookie, viewTokens } from '../content/view-token.js';
import { createCopyHops } from './copy-hop.js';
import { createCopyProxy, type CopyTarget } from './copy-proxy.js';
import { personalHeaders } from '../personal.js';
import { copyCookie, copyTokens, personalClaims } from './copy-token.js';
import { copyOriginKey } from '../../core/copy-origin-key.js';
import { notFoundPage, noticePage } from '../html.js';
import type { StandingCache } from '../standing-cache.js';
import { contentOriginOf, copyLabelOf, type ContentLabel } from '../origins.js';
import { createCaptureBlockNotes } from './capture-block-notes.js';
import { copyNotice } from './copy-states.js';
import { enforceRoomHeaders } from './copy-response-headers.js';
import { mayUseCopy, noLongerAllowed, watchSocketStandings } from './socket-standing-watch.js';

// A viewer's copy origin (`<slug>--v<session>`): every request and WebSocket, whatever its
// method, goes to that session's own copy, and to no other. The cookie names the session and is
// valid for this label only; the label is derived from the session, so a cookie cannot be
// replayed onto another viewer's copy. Bodies pass straight through, but for the HTML a page load
// gets, which carries the room's frame helper (copy-forward.ts) when the copy's own
// Content-Security-Policy lets it run; whether it does is recorded for the session's comments.

/**
 * The room's own cookies on a copy origin: neither reaches the copy on any path (the copy token is
 * the room's credential, security-4.md L4), and a copy may set neither.
 */
export const ROOM_COOKIES = [viewCookie, copyCookie];

/** How long the runner's answer about a session's copy is reused between requests. */
const targetMs = 2_000;

export function createCopyGateway(deps: { config: Config; sql: Sql; runner: RunnerClient; standings: StandingCache; log: Logger }) {
  const tokens = viewTokens(deps.config.APP_SECRET);
  // With a data plane (COPY_TOKEN_KEY set), every answer the room gives on a copy origin carries a
  // fresh copy token: the viewer's next requests go straight to the copy (docs/runner.md, "Data plane"),
  // told who the viewer is as the room's proxy tells it (the token's vn/vc become the same headers).
  const copyTokenMint = deps.config.COPY_TOKEN_KEY ? copyTokens(deps.config.COPY_TOKEN_KEY) : null;
  /** The room's copy token for the data plane, with the viewer's personal claims when the build asked (copy-token.ts). */
  const copyToken = (sessionId: string, copyId: string, viewerHeaders: Record<string, string>) =>
    copyTokenMint?.sign({ lbl: copyOriginKey(sessionId), sid: sessionId, cid: copyId, ...personalClaims(viewerHeaders) });
  const copyTokenCookie = (sessionId: string, view: CopyView, viewerHeaders: Record<string, string>): string[] =>
    copyTokenMint && view.copyId
      ? [fastifyCookie.serialize(copyCookie, copyToken(sessionId, view.copyId, viewerHeaders)!, copyTokenMint.cookieOptions)]
      : [];
  const hops = createCopyHops(deps.sql);
  /** Logged once: a copy the room cannot reach (no copy-token key here, or a host without a data plane). */
  let unreachableLogged = false;
  /**
   * The room's way to a copy, the only one (docs/runner.md, "One way to a copy"): its host's data
   * plane with a fresh copy token (copy-hop.ts). The room never learns a copy's own address. Null
   * when there is no way: the room has no COPY_TOKEN_KEY, or the host registered no copy origin.
   */
  async function hopTo(
    req: IncomingMessage,
    sessionId: string,
    copyId: string,
    viewerHeaders: Record<string, string>,
  ): Promise<Pick<CopyTarget, 'host' | 'port' | 'upstreamHeaders'> | null> {
    const dataplane = copyTokenMint ? await hops.dataplaneOf(copyId) : null;
    if (!dataplane) {
      if (!unreachableLogged)
        deps.log.error({ copyId, copyTokenKey: Boolean(copyTokenMint) }, "a copy's host has no data plane the room can reach");
      unreachableLogged = true;
      return null;
    }
    return { ...dataplane, upstreamHeaders: hops.upstreamHeaders(req.headers, copyToken(sessionId, copyId, viewerHeaders)!) };
  }
  const activity = throttledActivity((sessionId) => deps.runner.activity(sessionId));
  const views = new LRUCache<string, CopyView>({ max: 50_000, ttl: targetMs });
  const frameAncestors = new URL(deps.config.publicUrl).origin;
  const captureBlocks = createCaptureBlockNotes({ sql: deps.sql, log: deps.log });
  /** The copy origin (slug) each session's open WebSockets came through, for the standing watch. */
  const socketSlugs = new Map<string, string>();
  const proxy = createCopyProxy({
    dropCookies: ROOM_COOKIES,
    // Every copy of a host shares the way to its data plane: room for many viewers' page loads at once.
    connectionsPerUpstream: 256,
    // The room decides who may frame a copy and which cookies it may set (copy-response-headers.ts).
    // Its copy token after the rules: the copy cannot set that name, the room can.
    responseHeaders: (headers, target) => {
      enforceRoomHeaders(headers, { frameAncestors, reservedCookies: ROOM_COOKIES });
      if (target?.roomCookies?.length) headers['set-cookie'] = [...(headers['set-cookie'] ?? []), ...target.roomCookies];
    },
    // The demo's pages get the room's frame helper, as a static build's do (story rings, comment
    // screenshots), unless the copy's own policy would stop it: then the page goes as the copy
    // sent it, since a refused script would only cost the demo a console error and, with its
    // report-to, a violation report about a script that is not the builder's.
    htmlHead: ({ status, headers, target: { sessionId, originLabel } }) => {
      // A redirect's body is never shown: the page it leads to says whether the agent runs.
      if (!sessionId || !originLabel || (status >= 300 && status < 400)) return frameHelperTag(frameAncestors);
      const allowed = agentAllowedBy([headers['content-security-policy'] ?? []].flat(), contentOriginOf(deps.config, originLabel));
      captureBlocks.note(sessionId, originLabel, !allowed);
      return allowed ? frameHelperTag(frameAncestors) : '';
    },
    onActivity: (target) => target.sessionId && activity(target.sessionId),
    // The data plane ended the tunnel: a revoke, pause or takedown is told as the room's check tells it.
    copyClosed: async ({ sessionId }) => {
      const slug = sessionId ? socketSlugs.get(sessionId) : undefined;
      if (!sessionId || !slug) return null;
      return mayUseCopy(await deps.standings.fresh(sessionId), slug) ? null : noLongerAllowed;
    },
    onError: (err, target, out) => {
      // The copy stopped answering: ask the runner afresh next time (it may be paused or gone).
      if (target.sessionId) views.delete(target.sessionId);
      // In the frame, the room's words in the room's look (a self-contained page: the copy's
      // origin has no stylesheet to give while its server is down).
      if (!('writeHead' in out) || out.headersSent) return false;
      const slow = err.code === 'UND_ERR_HEADERS_TIMEOUT' || err.name === 'HeadersTimeoutError';
      out.writeHead(slow ? 504 : 502, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'retry-after': '2' });
      out.end(
        noticePage('Demo', slow ? 'The demo is slow to answer' : 'The demo is not answering', [
          slow
            ? 'It took too long to answer this page. Try again in a moment.'
            : 'Its server did not answer this page. It may be starting again: reload in a moment.',
        ]),
      );
      return true;
    },
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
      await captureBlocks.settled();
    },
  };
}

export type CopyGateway = ReturnType<typeof createCopyGateway>;

function sendNotFound(res: ServerResponse, extra: Record<string, string> = {}) {
  res.writeHead(404, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...extra });
  res.end(notFoundPage);
}
