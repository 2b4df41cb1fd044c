import http, { type IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createProxyServer } from 'http-proxy-3';
import type { PageHead } from '../content/frame-helper-tag.js';
import { PERSONAL_HEADERS } from '../personal.js';
import { createCopyForward, endToEnd } from './copy-forward.js';

// The proxy from a viewer's copy origin to that viewer's own container copy (issue 6, item 6):
// HTTP over undici's pooled connections (copy-forward.ts), WebSockets over http-proxy-3. The room decides whose copy a request may reach (the
// session's grant and cookie) and hands this helper the runner's target for it; the helper moves
// bytes, reports activity (the runner's idle culler counts requests AND open WebSockets: counting
// requests alone lets a quiet tab with a live socket be culled, sablier#576), and answers a copy
// that does not answer with a plain 502 or 504 instead of hanging the viewer.

export interface CopyTarget {
  host: string;
  port: number;
  /** Who the copy belongs to, passed back in activity reports (the room's viewer session). */
  sessionId?: string;
  /** The copy origin's label the request came through (services/room/origins.ts), passed back to `htmlHead`. */
  originLabel?: string;
  /** Added to every request and WebSocket upgrade to the copy: who the viewer is, for a build that asked (personal.ts). */
  viewerHeaders?: Record<string, string>;
  /** Set-Cookie values the room adds to the copy's answer (its copy token for the data plane, copy-token.ts). */
  roomCookies?: string[];
  /**
   * Set on the request last, over the viewer's own: the hop to another host's data plane
   * (copy-hop.ts: its cookie carrying the room's copy token, the marker of the room's hop).
   */
  upstreamHeaders?: Record<string, string>;
}

export type ActivityKind = 'http' | 'ws-open' | 'ws-message' | 'ws-open-tick';

export interface CopyProxyOptions {
  /** Called on every proxied request, WebSocket open, WebSocket traffic (at most every `wsMessageEveryMs` per socket) and every `wsTickMs` while one stays open. */
  onActivity?: (target: CopyTarget, kind: ActivityKind) => void;
  /**
   * Called when the copy cannot be reached (refused, reset, timed out). Return true when the
   * room answered the viewer itself (e.g. with the "paused while away" page); otherwise the
   * helper answers 502 (not answering) or 504 (too slow), or closes the WebSocket.
   */
  onError?: (err: Error & { code?: string }, target: CopyTarget, out: http.ServerResponse | Duplex) => boolean | void;
  /**
   * The copy's side of a WebSocket ended first: the close the viewer gets instead of a bare one, or
   * null. The data plane ends a session's tunnels when its standing ends (a revoke drops the route),
   * usually before the room's own standing check would: the viewer is still told why.
   */
  copyClosed?: (target: CopyTarget) => Promise<{ code: number; reason: string } | null>;
  /** Time the copy has to start answering a request (ms). Long enough for slow demo endpoints. */
  proxyTimeoutMs?: number;
  /** Time a viewer's idle request socket is kept (ms). */
  idleSocketMs?: number;
  /** Pooled connections per upstream (32): a copy, or a data plane, which carries all of its host's copies' hops. */
  connectionsPerUpstream?: number;
  wsTickMs?: number;
  wsMessageEveryMs?: number;
  /** Cookies (by name) never passed to the copy: the room's own cookie on the copy origin is not the demo's business. */
  dropCookies?: string[];
  /** Rewrites the copy's response headers (in place) before the viewer gets them: the room's policies win. */
  responseHeaders?: (headers: IncomingHttpHeaders, target?: CopyTarget) => void;
  /** Put into the HTML documents a page load gets from the copy (the room's frame helper), told the answer's headers. */
  htmlHead?: PageHead<CopyTarget>;
}

export interface CopyProxy {
  web(req: http.IncomingMessage, res: http.ServerResponse, target: CopyTarget): void;
  ws(req: http.IncomingMessage, socket: Duplex, head: Buffer, target: CopyTarget): void;
  /** WebSockets open now, to one copy (by host:port) or to all. */
  openSockets(target?: CopyTarget): number;
  /** Closes every open WebSocket and pooled connection (shutdown, or the copy went away). */
  close(target?: CopyTarget): void;
  /** Sessions (CopyTarget.sessionId) with a WebSocket open now. */
  sessionsWithSockets(): string[];
  /** Closes the session's open WebSockets with a close frame the viewer's page can read (code 4000-4999 or 1008). */
  closeSession(sessionId: string, code: number, reason: string): number;
}

const keyOf = (t: CopyTarget) => `${t.host}:${t.port}`;

/**
 * Headers that carry a viewer's address (put there by the viewer, by the platform's ingress, or by a proxy of theirs). A
 * copy is the builder's code: it learns nothing of who views it but what the page itself tells it, so these never reach
 * it. X-Forwarded-Host and X-Forwarded-Proto stay (set by the room, not passed on): they say only which origin the copy
 * is served on, which a copy needs to build its own absolute URLs (docs/decisions/security.md).
 */
export const VIEWER_ADDRESS_HEADERS = [
  'forwarded',
  'x-forwarded-for',
  'x-real-ip',
  'true-client-ip',
  'cf-connecting-ip',
  'x-client-ip',
  'x-cluster-client-ip',
  'fastly-client-ip',
  'x-forwarded',
  'forwarded-for',
  'x-original-forwarded-for',
];

/**
 * The personal headers in every spelling a copy's server may read as the same name: CGI-style
 * stacks (Rack, WSGI, PHP) map `-` and `_` alike (security-4.md L3). Any such header the viewer sent
 * goes; the room's own (personal.ts) are set after.
 */
export const VIEWER_HEADER_SPELLINGS = /^x[-_]demo[-_]viewer[-_]/i;

/** The forwarding headers the room sets on every request to a copy (HTTP and WebSocket alike). */
function forwardingHeaders(req: http.IncomingMessage): Record<string, string> {
  return { 'x-forwarded-proto': 'http', ...(req.headers.host ? { 'x-forwarded-host': req.headers.host } : {}) };
}

/** The Cookie header without the named cookies; undefined when nothing is left. */
export function withoutCookies(header: string | undefined, names: string[]): string | undefined {
  if (!header || !names.length) return header;
  const kept = header
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p && !names.includes(p.slice(0, p.indexOf('=') < 0 ? p.length : p.indexOf('=')).trim()));
  return kept.length ? kept.join('; ') : undefined;
}

/** The HTTP way to copies: the viewer's request headers cleaned and the room's own set, the copy's answer headers passed on. */
function copyForward(opts: CopyProxyOptions, proxyTimeout: number, drop: string[]) {
  return createCopyForward<CopyTarget>({
    headersTimeoutMs: proxyTimeout,
    idleSocketMs: opts.idleSocketMs ?? 30_000,
    connectionsPerCopy: opts.connectionsPerUpstream,
    requestHeaders: (req, target) => {
      const headers = endToEnd(req.headers);
      const cookie = withoutCookies(req.headers.cookie, drop);
      if (cookie === undefined) delete headers.cookie;
      else headers.cookie = cookie;
      // Who the viewer is, the room alone says (personal.ts): never what the viewer sent.
      for (const name of [...VIEWER_ADDRESS_HEADERS, ...PERSONAL_HEADERS, 'x-forwarded-proto', 'x-forwarded-host']) delete headers[name];
      for (const name of Object.keys(headers)) if (VIEWER_HEADER_SPELLINGS.test(name)) delete headers[name];
      return { ...headers, ...forwardingHeaders(req), ...target.viewerHeaders, ...target.upstreamHeaders };
    },
    responseHeaders: (headers, target) => {
      opts.responseHeaders?.(headers, target);
      return endToEnd(headers);
    },
    htmlHead: opts.htmlHead,
  });
}

/** A request the copy did not answer: the caller's own answer (onError), else 504 when it was too slow, 502 otherwise. */
function failWeb(
  opts: CopyProxyOptions,
  proxyTimeout: number,
  res: http.ServerResponse,
  started: number,
  err: Error & { code?: string },
  target: CopyTarget,
) {
  if (opts.onError?.(err, target, res)) return;
  if (res.headersSent) return void res.destroy();
  const slow = Date.now() - started >= proxyTimeout - 50;
  res.writeHead(slow ? 504 : 502, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.end(slow ? 'The demo took too long to answer.\n' : 'The demo is not answering.\n');
}

/** A WebSocket's activity: its opening, a message at most every `messageEvery` ms, and a tick while open. Returns the tick, to clear. */
function reportWsActivity(socket: Duplex, target: CopyTarget, opts: CopyProxyOptions, tickMs: number, messageEvery: number) {
  opts.onActivity?.(target, 'ws-open');
  let lastMessage = Date.now();
  const onData = () => {
    if (Date.now() - lastMessage < messageEvery) return;
    lastMessage = Date.now();
    opts.onActivity?.(target, 'ws-message');
  };
  // An open socket is activity even when silent (a dashboard waiting for pushes).
  const tick = setInterval(() => opts.onActivity?.(target, 'ws-open-tick'), tickMs);
  tick.unref();
  socket.on('data', onData);
  return tick;
}

export function createCopyProxy(opts: CopyProxyOptions = {}): CopyProxy {
  const proxyTimeout = opts.proxyTimeoutMs ?? 60_000;
  const wsTick = opts.wsTickMs ?? 30_000;
  const wsMessageEvery = opts.wsMessageEveryMs ?? 5_000;
  const drop = opts.dropCookies ?? [];
  // Keep-alive to each copy: most of a page's requests then reuse a warm connection.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 8, timeout: opts.idleSocketMs ?? 30_000 });
  // No xfwd: it would add the viewer's address (X-Forwarded-For); the room sets its own forwarding headers below.
  const proxy = createProxyServer({ agent, xfwd: false, proxyTimeout });
  const forward = copyForward(opts, proxyTimeout, drop);
  const sockets = new Map<string, Set<Duplex>>();
  const bySession = new Map<string, Set<Duplex>>();

  // A WebSocket's request as the copy sees it: the same cookies and forwarding headers as an HTTP request's.
  const asCopySees = (proxyReq: http.ClientRequest, req: http.IncomingMessage, viewerHeaders: Record<string, string> = {}) => {
    for (const name of [...VIEWER_ADDRESS_HEADERS, ...PERSONAL_HEADERS]) proxyReq.removeHeader(name);
    for (const name of proxyReq.getHeaderNames()) if (VIEWER_HEADER_SPELLINGS.test(name)) proxyReq.removeHeader(name);
    for (const [name, value] of Object.entries({ ...forwardingHeaders(req), ...viewerHeaders })) proxyReq.setHeader(name, value);
    if (!drop.length) return;
    const cookie = withoutCookies(req.headers.cookie, drop);
    if (cookie === undefined) proxyReq.removeHeader('cookie');
    else proxyReq.setHeader('cookie', cookie);
  };
  proxy.on('proxyReq', (proxyReq, req) => asCopySees(proxyReq, req));
  // The upgrade's personal headers ride in its options (`headers`, set by ws() below).
  // A WebSocket's upstream headers (CopyTarget.upstreamHeaders), by its request, until it is sent.
  const upstreamOf = new WeakMap<http.IncomingMessage, Record<string, string>>();
  const targetOf = new WeakMap<http.IncomingMessage, CopyTarget>();
  proxy.on('proxyReqWs', (proxyReq, req, socket, options) => {
    asCopySees(proxyReq, req, options.headers as Record<string, string> | undefined);
    for (const [name, value] of Object.entries(upstreamOf.get(req) ?? {})) proxyReq.setHeader(name, value);
    const target = targetOf.get(req);
    const told = target && opts.copyClosed ? () => opts.copyClosed!(target) : undefined;
    proxyReq.once('upgrade', (_res, copySocket: Duplex) => tieHalves(socket, copySocket, told));
  });
  // For answers through http-proxy-3 (a WebSocket request the copy answers without upgrading);
  // HTTP answers get the same in copy-forward.ts.
  if (opts.responseHeaders) proxy.on('proxyRes', (proxyRes) => opts.responseHeaders!(proxyRes.headers));
  // Errors without a callback of their own (should not happen: every call passes one) must not crash the room.
  proxy.on('error', () => {});

  return {
    web(req, res, target) {
      opts.onActivity?.(target, 'http');
      const started = Date.now();
      forward.web(req, res, target, (err) => failWeb(opts, proxyTimeout, res, started, err, target));
    },

    ws(req, socket, head, target) {
      const key = keyOf(target);
      const open = sockets.get(key) ?? new Set();
      sockets.set(key, open);
      open.add(socket);
      const session = target.sessionId ? (bySession.get(target.sessionId) ?? new Set()) : null;
      if (session) bySession.set(target.sessionId!, session.add(socket));
      const tick = reportWsActivity(socket, target, opts, wsTick, wsMessageEvery);
      socket.once('close', () => {
        clearInterval(tick);
        open.delete(socket);
        if (!open.size) sockets.delete(key);
        session?.delete(socket);
        if (session && !session.size) bySession.delete(target.sessionId!);
      });
      const upgrade = { target: { host: target.host, port: target.port, protocol: 'http:' }, headers: { ...target.viewerHeaders } };
      if (target.upstreamHeaders) upstreamOf.set(req, target.upstreamHeaders);
      targetOf.set(req, target);
      proxy.ws(req, socket, head, upgrade, (err) => {
        if (opts.onError?.(err as Error & { code?: string }, target, socket)) return;
        if (!socket.destroyed) {
          // Before the upgrade: an HTTP answer the browser can read; after it: just close.
          if (!(socket as Socket).bytesWritten) socket.end('HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
          else socket.destroy();
        }
      });
    },

    openSockets(target) {
      if (target) return sockets.get(keyOf(target))?.size ?? 0;
      let n = 0;
      for (const set of sockets.values()) n += set.size;
      return n;
    },

    close(target) {
      const keys = target ? [keyOf(target)] : [...sockets.keys()];
      for (const key of keys) for (const s of sockets.get(key) ?? []) s.destroy();
      forward.close(target);
      if (!target) agent.destroy();
    },

    sessionsWithSockets: () => [...bySession.keys()],

    closeSession(sessionId, code, reason) {
      const open = [...(bySession.get(sessionId) ?? [])];
      for (const socket of open) closeWebSocket(socket, code, reason);
      return open.length;
    },
  };
}

/**
 * Ties a proxied WebSocket's two halves (the viewer's and the copy's) so both go when either ends,
 * errors or closes. http-proxy-3 only pipes them: a viewer's FIN is passed on as a FIN and the
 * room then waits for the copy's, which a copy's server need not ever send (node:http servers
 * keep upgraded sockets half open; the test demo's does). Both halves then stay open for good,
 * and the room's server.close() waits on the viewer's half forever. A half-open WebSocket carries
 * nothing anyone reads, so the ended side's peer gets what was already sent and a FIN, then both
 * are destroyed; a peer that never reads gets `endGraceMs` at most.
 */
const endGraceMs = 1_000;
function tieHalves(viewer: Duplex, copy: Duplex, copyClosed?: () => Promise<{ code: number; reason: string } | null>): void {
  const both = () => {
    viewer.destroy();
    copy.destroy();
  };
  // http-proxy-3 ends the viewer's half as soon as the copy's ends (its pipe, its close handler).
  // When the room may have a reason to give (copyClosed), those ends wait until it has asked:
  // these listeners run first (this is called before http-proxy-3 sets up its own), so `held` is
  // up before either of its calls.
  const end = viewer.end.bind(viewer);
  let held = false;
  if (copyClosed) viewer.end = ((...args: Parameters<Duplex['end']>) => (held ? viewer : end(...args))) as Duplex['end'];
  const release = () => {
    held = false;
    viewer.end = end;
  };
  // The viewer's side going first is the plain case (a tab closed): both go, nothing to ask.
  let viewerWent = false;
  const viewerGone = (how: () => void) => () => {
    viewerWent = true;
    how();
  };
  viewer.once(
    'end',
    viewerGone(() => {
      copy.end(both);
      setTimeout(both, endGraceMs).unref();
    }),
  );
  viewer.once('error', viewerGone(both));
  viewer.once('close', viewerGone(both));
  // The copy's side going first: the viewer hears why when there is a why (asked once).
  let asked = false;
  const copyGone = (how: () => void) => () => {
    if (!copyClosed || viewerWent) return how();
    if (asked) return;
    asked = true;
    held = true;
    viewer.removeAllListeners('data');
    void copyClosed()
      .catch(() => null)
      .then((close) => {
        release();
        if (close && !viewer.destroyed) closeWebSocket(viewer, close.code, close.reason);
        else how();
      })
      .finally(() => copy.destroy());
  };
  copy.once(
    'end',
    copyGone(() => {
      viewer.end(both);
      setTimeout(both, endGraceMs).unref();
    }),
  );
  copy.once('error', copyGone(both));
  copy.once('close', copyGone(both));
}

/**
 * Ends a proxied WebSocket from the room's side: the copy's stream stops first (so no frame of
 * its own is cut in half by ours), then the viewer gets a close frame with `code` and `reason`,
 * and the socket goes (destroying it closes the copy's side too). A frame the copy was half way
 * through is the one risk, and a viewer whose standing ended gets the close either way.
 */
export function closeWebSocket(socket: Duplex, code: number, reason: string): void {
  if (socket.destroyed) return;
  const text = Buffer.from(reason).subarray(0, 123);
  const frame = Buffer.alloc(4 + text.length);
  frame[0] = 0x88; // FIN + close
  frame[1] = 2 + text.length; // unmasked: server to client
  frame.writeUInt16BE(code, 2);
  text.copy(frame, 4);
  socket.removeAllListeners('data');
  socket.end(frame, () => socket.destroy());
  // A viewer that never reads keeps the socket half open: it goes anyway.
  setTimeout(() => socket.destroy(), 1_000).unref();
}
