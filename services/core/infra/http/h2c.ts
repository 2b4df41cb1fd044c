import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createH2Server, type Http2ServerRequest, type Http2ServerResponse, type Http2Session } from 'node:http2';
import type { Socket } from 'node:net';
import { SERVER_TIMEOUTS } from './server-timeouts.js';

// One port that speaks HTTP/1.1 and cleartext HTTP/2 with prior knowledge (h2c), for a server
// whose callers hold many calls open at once: the runner, whose room keeps a crowd's long-polls
// open (docs/scale.md, "Ninth round"). Over HTTP/1.1 each open call holds a connection of its
// own, and 10,000 viewers arriving at once opened more connections than the hosts could accept
// (their listen queues overflowed, and the kernel made callers wait 1, 3, 7, 15 s to try again).
// Over h2c a host's calls share a few connections, each call a stream. Node's cleartext HTTP/2
// server does not fall back to HTTP/1.1, so the first bytes decide: every HTTP/2 connection
// opens with the preface "PRI * HTTP/2.0", and no HTTP/1.1 method is PRI. Curl, health checks
// and operators' tools keep speaking HTTP/1.1 to the same port.

/** The HTTP/2 connection preface's first bytes (RFC 9113 §3.4). */
const PREFACE = Buffer.from('PRI ');

/** Streams one HTTP/2 connection may hold open at once: a host's share of a crowd, bounded. */
export const H2C_MAX_STREAMS = 4096;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * A fastify serverFactory: an HTTP/1.1 server (fastify's own timeouts and close behaviour apply
 * to it) whose connections that open with the HTTP/2 preface go to an HTTP/2 server with the same
 * handler. On close, HTTP/2 sessions are told to go away (GOAWAY: open streams finish, no new
 * ones), as fastify does for its own HTTP/2 servers.
 */
export function serveH1AndH2c(handler: Handler): Server {
  const h1 = createServer(handler);
  const h2 = createH2Server({ settings: { maxConcurrentStreams: H2C_MAX_STREAMS } }, handler as unknown as H2Handler);
  const sessions = new Set<Http2Session>();
  h2.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    // An idle session ends as an idle HTTP/1.1 connection would (server-timeouts.ts).
    session.setTimeout(SERVER_TIMEOUTS.keepAliveTimeout, () => session.close());
  });
  const http1 = h1.listeners('connection') as ((socket: Socket) => void)[];
  h1.removeAllListeners('connection');
  h1.on('connection', (socket: Socket) => {
    // A connection that says nothing is closed as one that never finishes its headers would be.
    const quiet = () => socket.destroy();
    socket.setTimeout(SERVER_TIMEOUTS.headersTimeout);
    socket.once('timeout', quiet);
    socket.once('readable', () => {
      socket.setTimeout(0);
      socket.off('timeout', quiet);
      const first = socket.read() as Buffer | null;
      // Closed before a byte: over (the server allows half-open sockets, so it must end it itself).
      if (!first) return void socket.destroy();
      socket.unshift(first);
      if (startsWithPreface(first)) h2.emit('connection', socket);
      else for (const listen of http1) listen.call(h1, socket);
    });
  });
  return Object.assign(h1, {
    /** fastify calls it on close (it looks for the method when the server is made). */
    closeHttp2Sessions() {
      for (const session of sessions) session.close();
    },
  });
}

type H2Handler = (req: Http2ServerRequest, res: Http2ServerResponse) => void;

function startsWithPreface(first: Buffer): boolean {
  const n = Math.min(first.length, PREFACE.length);
  return first.subarray(0, n).equals(PREFACE.subarray(0, n));
}

/**
 * Whether the caller of this request has gone: over HTTP/1.1 its connection closed; over HTTP/2
 * its stream (the connection carries other callers' calls, and stays).
 */
export function callerClosed(raw: IncomingMessage | Http2ServerRequest): boolean {
  if ('stream' in raw) return raw.stream.destroyed;
  return raw.socket?.destroyed === true;
}
