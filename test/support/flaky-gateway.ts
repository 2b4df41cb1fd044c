import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A pass-through in front of a real server (the api, the object store) that fails the requests a
// test picks the way a network or a load balancer does: it cuts the connection half way through
// the body, or answers 503 itself without passing the request on. Everything else goes through
// untouched, with the Host header put back to the target's (a presigned signature still holds).
// `unavailable`'s 503 comes once the body is read, as from nginx (which buffers a request's body
// before it picks an upstream); `unavailable-at-once` answers before reading it, as HAProxy does,
// and then the client's write may break before it reads the answer: which of the two it reports is
// a race (a CI run saw EPIPE where the 503 was expected).

/** What the gateway does with one request: pass it on, break it after this many body bytes, or answer 503. */
export type GatewayFault = 'pass' | { breakAfter: number } | 'unavailable' | 'unavailable-at-once';

export interface FlakyGateway {
  origin: string;
  close(): Promise<void>;
}

export async function flakyGateway(
  target: string,
  faultOf: (req: IncomingMessage) => GatewayFault,
  /**
   * `keepHost`: the client's Host goes through as it came. A registry builds an upload's Location
   * from it, so the upload's later requests come back through the gateway, not around it.
   */
  options: { keepHost?: boolean } = {},
): Promise<FlakyGateway> {
  const to = new URL(target);
  const server: Server = createServer((req, res) => {
    const fault = faultOf(req);
    if (fault === 'unavailable' || fault === 'unavailable-at-once') {
      const answer = () => res.writeHead(503, { 'content-type': 'text/plain', connection: 'close' }).end('no server is available');
      req.resume();
      if (fault === 'unavailable') req.on('end', answer);
      else answer();
      return;
    }
    const upstream = request(
      {
        host: to.hostname,
        port: to.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: options.keepHost ? req.headers.host : to.host },
      },
      (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    if (fault !== 'pass') {
      // Cut both sides once enough has gone through: the client sees its connection break, the
      // target a body that stops short.
      let seen = 0;
      req.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen > fault.breakAfter) {
          upstream.destroy();
          req.socket.destroy();
        }
      });
    }
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
