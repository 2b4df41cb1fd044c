import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A forwarding proxy in front of an older platform (one that offers no direct upload) that
 * re-sends upload PUTs chunked, without their Content-Length, as some corporate proxies do. The
 * platform itself then answers 411: the upload refusal the tool must report, produced by the
 * real platform.
 */
export function startChunkingProxy(target: string): Promise<{ url: string; close: () => Promise<void> }> {
  return startOlderPlatform(target, { chunked: true });
}

/**
 * A server that only records what reaches it: where a misled tool would send an upload. `seen`
 * holds each request's method, path and Authorization header.
 */
export async function startRecorder(): Promise<{
  url: string;
  seen: { method?: string; url?: string; authorization?: string }[];
  close: () => Promise<void>;
}> {
  const seen: { method?: string; url?: string; authorization?: string }[] = [];
  const server: Server = createServer((req, res) => {
    seen.push({ method: req.method, url: req.url, authorization: req.headers.authorization });
    req.resume();
    res.writeHead(204).end();
  });
  return { ...(await listenOnLoopback(server, 'localhost')), seen };
}

/**
 * A proxy in front of the platform that rewrites startUpload's reply: its putUrl becomes what
 * `putUrl(original)` says (an absolute address elsewhere), as a compromised or misconfigured
 * platform or proxy could answer. It offers no direct upload, so the tool uses putUrl.
 */
export function startPutUrlRewriter(
  target: string,
  putUrl: (original: string) => string,
): Promise<{ url: string; close: () => Promise<void> }> {
  return startOlderPlatform(target, { putUrl });
}

/**
 * The platform as one from before direct uploads answered (issue 32): startUpload's reply without
 * `direct`, so the tool falls back to the api PUT. `putUrl` rewrites its putUrl; `chunked` re-sends
 * upload PUTs without their Content-Length.
 */
export async function startOlderPlatform(
  target: string,
  opts: { putUrl?: (original: string) => string; chunked?: boolean } = {},
): Promise<{ url: string; close: () => Promise<void> }> {
  const to = new URL(target);
  const server: Server = createServer((req, res) => {
    const startUpload = req.method === 'POST' && /^\/api\/projects\/[^/]+\/uploads$/.test(req.url ?? '');
    const headers = { ...req.headers, host: to.host };
    if (startUpload) delete headers['accept-encoding'];
    if (opts.chunked && req.method === 'PUT' && req.url?.startsWith('/api/uploads/')) {
      delete headers['content-length'];
      headers['transfer-encoding'] = 'chunked';
    }
    const upstream = request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers }, (reply) => {
      if (!startUpload || reply.statusCode !== 200) {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        return reply.pipe(res);
      }
      const chunks: Buffer[] = [];
      reply.on('data', (chunk: Buffer) => chunks.push(chunk));
      reply.on('end', () => {
        const { direct: _direct, ...body } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const text = JSON.stringify({ ...body, putUrl: opts.putUrl ? opts.putUrl(body.putUrl) : body.putUrl });
        const { 'content-length': _length, 'transfer-encoding': _encoding, ...rest } = reply.headers;
        res.writeHead(200, { ...rest, 'content-length': Buffer.byteLength(text) }).end(text);
      });
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  return listenOnLoopback(server, '127.0.0.1');
}

/** Listens on a free loopback port; `url` names it by `host` (an address or `localhost`). */
async function listenOnLoopback(server: Server, host: string): Promise<{ url: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
