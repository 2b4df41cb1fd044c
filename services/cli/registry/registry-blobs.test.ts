import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openBlob, readSmallBlob } from './registry-blobs.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A loopback server (an origin of its own), answering with `handle`; the headers of each request it saw. */
async function serve(handle: (url: string, res: ServerResponse) => void) {
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    handle(req.url ?? '', res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const target = (registryUrl: string) => ({ registryUrl, repository: 'ws/project', token: 'registry-token' });
const DIGEST = `sha256:${'a'.repeat(64)}`;

describe('openBlob', () => {
  it("follows the registry's redirect to its storage, and takes the token only to the registry", async () => {
    const storage = await serve((_url, res) => res.end('{"config":true}'));
    const registry = await serve((url, res) => {
      if (url.startsWith('/v2/')) res.writeHead(307, { location: '/moved' }).end();
      else res.writeHead(302, { location: `${storage.url}/bucket/blob?signed=1` }).end();
    });
    expect((await readSmallBlob(target(registry.url), DIGEST))?.toString()).toBe('{"config":true}');
    expect(registry.seen.map((r) => [r.url, r.headers.authorization])).toEqual([
      [`/v2/ws/project/blobs/${DIGEST}`, 'Bearer registry-token'],
      ['/moved', 'Bearer registry-token'],
    ]);
    expect(storage.seen.map((r) => [r.url, r.headers.authorization])).toEqual([['/bucket/blob?signed=1', undefined]]);
  });

  it('answers null for a blob the repository lacks, and refuses any other answer and a redirect loop', async () => {
    const missing = await serve((_url, res) => res.writeHead(404).end('{"errors":[]}'));
    expect(await openBlob(target(missing.url), DIGEST)).toBeNull();
    const broken = await serve((_url, res) => res.writeHead(500).end());
    await expect(openBlob(target(broken.url), DIGEST)).rejects.toThrow(`reading ${DIGEST} from the registry: it answered 500`);
    const loop = await serve((_url, res) => res.writeHead(307, { location: '/again' }).end());
    await expect(openBlob(target(loop.url), DIGEST)).rejects.toThrow('it answered 307');
    expect(loop.seen).toHaveLength(6);
  });

  it('refuses a config larger than it may be, reading no further', async () => {
    const large = await serve((_url, res) => res.end(Buffer.alloc(2048, 'x')));
    await expect(readSmallBlob(target(large.url), DIGEST, 1024)).rejects.toThrow('is larger than 1024 bytes, not an image config');
  });
});
