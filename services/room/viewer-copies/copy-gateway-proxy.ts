import type { Config } from '../../core/infra/config.js';
import type { Sql } from '../../core/infra/db.js';
import type { Logger } from '../../core/infra/log.js';
import { agentAllowedBy } from '../content/capture-policy.js';
import { frameHelperTag } from '../content/frame-helper-tag.js';
import { viewCookie } from '../content/view-token.js';
import { noticePage } from '../html.js';
import { contentOriginOf } from '../origins.js';
import type { StandingCache } from '../standing-cache.js';
import { createCaptureBlockNotes } from './capture-block-notes.js';
import { createCopyProxy } from './copy-proxy.js';
import { enforceRoomHeaders } from './copy-response-headers.js';
import { copyCookie } from './copy-token.js';
import { mayUseCopy, noLongerAllowed } from './socket-standing-watch.js';

// The copy gateway's proxy (copy-gateway.ts): how the room carries a viewer's request to their
// copy and its answer back. The room decides the framing policy and the cookies a copy may set,
// puts its frame helper into the pages a viewer opens (unless the copy's own policy would stop
// it), tells a socket the data plane ended in its own words, and answers a copy that does not
// answer with a page of its own.

/**
 * The room's own cookies on a copy origin: neither reaches the copy on any path (the copy token is
 * the room's credential, security-4.md L4), and a copy may set neither.
 */
export const ROOM_COOKIES = [viewCookie, copyCookie];

export interface GatewayProxyDeps {
  config: Config;
  sql: Sql;
  standings: StandingCache;
  log: Logger;
  /** The room origin, the only one that may frame a copy. */
  frameAncestors: string;
  /** Counts a session's use of its copy (the idle culler's activity). */
  activity: (sessionId: string) => unknown;
  /** The copy stopped answering: forget what the runner said of the session's copy. */
  forgetCopy: (sessionId: string) => void;
  /** The copy origin (slug) each session's open WebSockets came through. */
  socketSlugs: Map<string, string>;
}

export function createGatewayProxy(deps: GatewayProxyDeps) {
  const { frameAncestors } = deps;
  const captureBlocks = createCaptureBlockNotes({ sql: deps.sql, log: deps.log });
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
    onActivity: (target) => target.sessionId && deps.activity(target.sessionId),
    // The data plane ended the tunnel: a revoke, pause or takedown is told as the room's check tells it.
    copyClosed: async ({ sessionId }) => {
      const slug = sessionId ? deps.socketSlugs.get(sessionId) : undefined;
      if (!sessionId || !slug) return null;
      return mayUseCopy(await deps.standings.fresh(sessionId), slug) ? null : noLongerAllowed;
    },
    onError: (err, target, out) => {
      // The copy stopped answering: ask the runner afresh next time (it may be paused or gone).
      if (target.sessionId) deps.forgetCopy(target.sessionId);
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
  return { proxy, settled: () => captureBlocks.settled() };
}
