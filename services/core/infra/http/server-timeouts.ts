import type { Server } from 'node:http';

// The HTTP servers' timeouts (api, room, runner), set to fit the load balancer in front of them
// (docs/architecture.md, "HTTP servers behind a load balancer"). A balancer keeps connections to
// its backends open between requests and reuses them; if the backend closes an idle one first,
// a request the balancer sends on it at that moment fails (a 502 the viewer sees). So the server
// keeps an idle connection longer than any usual balancer does (AWS ALB and nginx's upstream
// keep-alive: 60 s); Node's own default is 5 s.

export const SERVER_TIMEOUTS = {
  /** An idle keep-alive connection is closed after this (ms): above a balancer's 60 s idle timeout. */
  keepAliveTimeout: 65_000,
  /**
   * A request's headers must all arrive within this (ms) of its first byte. Node counts it from
   * the start of each request, not from the connection's idle time, so it may be shorter than
   * the keep-alive timeout; it bounds a client that sends headers a byte at a time.
   */
  headersTimeout: 30_000,
  /** A whole request (headers and body) must arrive within this (ms): the largest upload on a slow link. */
  requestTimeout: 300_000,
} as const;

/** Sets SERVER_TIMEOUTS on the server (fastify's own options do not reach a serverFactory's server). */
export function fitLoadBalancer(server: Server): Server {
  server.keepAliveTimeout = SERVER_TIMEOUTS.keepAliveTimeout;
  server.headersTimeout = SERVER_TIMEOUTS.headersTimeout;
  server.requestTimeout = SERVER_TIMEOUTS.requestTimeout;
  return server;
}
