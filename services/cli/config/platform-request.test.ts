import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { describeFailure } from '../refusal.js';
import { MAX_REPLY_BYTES, platformRequest } from './platform-request.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A loopback server answering with `handle`; its address and how many connections it saw. */
async function serve(handle: (req: IncomingMessage, body: string, res: ServerResponse) => void) {
  let connections = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => handle(req, body, res));
  });
  server.on('connection', () => connections++);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
}

describe('platformRequest', () => {
  it('sends the method, headers and body it is given, and reads the status and the reply', async () => {
    const server = await serve((req, body, res) => {
      res.writeHead(201, 'Made', { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ method: req.method, url: req.url, length: req.headers['content-length'], auth: req.headers.authorization, body }),
      );
    });
    const reply = await platformRequest(`${server.url}/v1/projects?x=1`, {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Déjà vu' }),
    });
    expect(reply.status).toBe(201);
    expect(reply.statusText).toBe('Made');
    expect(await reply.json()).toEqual({
      method: 'POST',
      url: '/v1/projects?x=1',
      length: String(Buffer.byteLength('{"name":"Déjà vu"}')),
      auth: 'Bearer t',
      body: '{"name":"Déjà vu"}',
    });
  });

  it('makes calls in turn over one kept-alive connection', async () => {
    const server = await serve((_req, _body, res) => res.end('{}'));
    for (let i = 0; i < 3; i++) expect((await platformRequest(server.url, { method: 'GET', headers: {} })).status).toBe(200);
    expect(server.connections()).toBe(1);
  });

  it('fails as fetch does when nothing listens, and the tool says the platform cannot be reached', async () => {
    const server = await serve((_req, _body, res) => res.end());
    const closed = servers.pop()!;
    await new Promise((resolve) => closed.close(resolve));
    const failure = await platformRequest(server.url, { method: 'GET', headers: {} }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe('fetch failed');
    expect(((failure as TypeError).cause as { code?: string }).code).toBe('ECONNREFUSED');
    const port = new URL(server.url).port;
    expect(describeFailure(failure, false)[0]).toBe(`pitch: cannot reach the platform: connection refused on port ${port}`);
  });

  it('refuses a reply larger than any the platform sends', async () => {
    const server = await serve((_req, _body, res) => res.end(Buffer.alloc(MAX_REPLY_BYTES + 1, 'x')));
    const failure = await platformRequest(server.url, { method: 'GET', headers: {} }).catch((err: unknown) => err);
    expect(((failure as TypeError).cause as Error).message).toBe('the reply is over 32 MiB');
  });

  it('refuses a body it cannot send as it is, sending nothing', async () => {
    const server = await serve((_req, _body, res) => res.end());
    const failure = await platformRequest(server.url, { method: 'PUT', headers: {}, body: new Blob(['x']) }).catch((err: unknown) => err);
    expect((failure as Error).message).toBe('the platform is sent text or bytes only');
    expect(server.connections()).toBe(0);
  });

  // In a process of its own: a test worker may have loaded Node's fetch for something else.
  it("the tool's client loads none of Node's fetch, and a kept-alive connection holds no exit up", async () => {
    const server = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ email: 'a@example.com' }));
    });
    const child = `
      const { register } = await import('tsx/esm/api');
      register();
      const { CliContext } = await import('./services/cli/context.ts');
      const client = new CliContext({ api: process.env.API }, {}).withToken('t');
      const status = await client.call('whoami').then(() => 'ok', (err) => err.name);
      await new Promise((resolve) => setImmediate(resolve));
      console.log(JSON.stringify({
        status,
        fetchLoaded: process.moduleLoadList.some((name) => name.includes('internal/deps/undici')),
        open: process.getActiveResourcesInfo(),
      }));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', child], {
      cwd: process.cwd(),
      env: { ...process.env, API: server.url },
    });
    const seen = JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: string; fetchLoaded: boolean; open: string[] };
    // The reply does not fit whoami's schema (a ContractError), which is beside the point: it was read.
    expect(seen.status).toMatch(/^(ok|ContractError)$/);
    expect(seen.fetchLoaded).toBe(false);
    expect(seen.open).not.toContain('TCPSocketWrap');
  });
});
