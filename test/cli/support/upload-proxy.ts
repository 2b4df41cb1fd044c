import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A forwarding proxy in front of the platform that re-sends upload PUTs chunked, without their
 * Content-Length, as some corporate proxies do. The platform itself then answers 411: the upload
 * refusal the tool must report, produced by the real platform.
 */
export async function startChunkingProxy(target: string): Promise<{ url: string; close: () => Promise<void> }> {
  const to = new URL(target);
  const server: Server = createServer((req, res) => {
    const headers = { ...req.headers, host: to.host };
    if (req.method === 'PUT' && req.url?.startsWith('/api/uploads/')) {
      delete headers['content-length'];
      headers['transfer-encoding'] = 'chunked';
    }
    const upstream = request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers }, (reply) => {
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
