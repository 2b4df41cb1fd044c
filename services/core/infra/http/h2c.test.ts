import { connect as connectH2, type ClientHttp2Session } from 'node:http2';
import { type AddressInfo, connect as connectTcp } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, { type FastifyInstance } from 'fastify';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { callerClosed, serveH1AndH2c } from './h2c.js';

// One port, both protocols (h2c.ts): what the runner's port does for the room's crowd of calls.

let app: FastifyInstance;
let connections = 0;
const seenClosed: boolean[] = [];

async function start(): Promise<string> {
  app = Fastify({ serverFactory: serveH1AndH2c });
  app.server.on('connection', () => connections++);
  app.get('/version', async (req) => ({ version: req.raw.httpVersion }));
  app.post('/hold', async (req) => {
    await sleep(Number((req.query as { ms?: string }).ms ?? 50));
    return { got: req.body };
  });
  // Waits until its caller has gone (or 5 s), and records what it saw.
  app.get('/until-gone', async (req) => {
    for (let i = 0; i < 100 && !callerClosed(req.raw); i++) await sleep(50);
    seenClosed.push(callerClosed(req.raw));
    return {};
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  await app?.close();
  connections = 0;
  seenClosed.length = 0;
});

function h2get(session: ClientHttp2Session, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path });
    let body = '';
    let status = 0;
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.setEncoding('utf8');
    stream.on('data', (d: string) => (body += d));
    stream.on('end', () => resolve({ status, body }));
    stream.on('error', reject);
  });
}

describe('serveH1AndH2c', () => {
  it('answers HTTP/1.1 and h2c on the same port', async () => {
    const url = await start();
    const h1 = await fetch(`${url}/version`);
    expect(await h1.json()).toEqual({ version: '1.1' });
    const session = connectH2(url);
    try {
      const h2 = await h2get(session, '/version');
      expect(h2.status).toBe(200);
      expect(JSON.parse(h2.body)).toEqual({ version: '2.0' });
    } finally {
      session.close();
    }
  });

  it('carries 2,000 calls held open at once over a handful of connections', async () => {
    const url = await start();
    const agent = new Agent({
      connections: 4,
      allowH2: true,
      connect: { useH2c: true } as Agent.Options['connect'],
      maxConcurrentStreams: 1000,
      pipelining: 1000,
    });
    try {
      const replies = await Promise.all(
        Array.from({ length: 2000 }, async (_, i) => {
          const res = await request(`${url}/hold?ms=200`, {
            method: 'POST',
            body: JSON.stringify({ i }),
            headers: { 'content-type': 'application/json' },
            dispatcher: agent,
            idempotent: true,
          });
          return (await res.body.json()) as { got: { i: number } };
        }),
      );
      expect(replies.map((r) => r.got.i)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
      expect(connections).toBeLessThanOrEqual(4);
    } finally {
      await agent.close();
    }
  });

  it('tells a handler its HTTP/2 caller has gone when the stream is reset, while the connection carries on', async () => {
    const url = await start();
    const session = connectH2(url);
    try {
      const stream = session.request({ ':path': '/until-gone' });
      stream.on('error', () => {});
      await sleep(200);
      stream.close(); // RST_STREAM: this call only
      for (let i = 0; i < 40 && !seenClosed.length; i++) await sleep(50);
      expect(seenClosed).toEqual([true]);
      expect((await h2get(session, '/version')).status).toBe(200);
    } finally {
      session.close();
    }
  });

  it('ends a connection that closes its side before sending a byte (nothing half-open left behind)', async () => {
    const url = new URL(await start());
    const socket = connectTcp(Number(url.port), url.hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.end();
    await closed;
    // The server held nothing open: it closes at once.
    await app.close();
  });

  it('closes with HTTP/2 sessions open (they are told to go away)', async () => {
    const url = await start();
    const session = connectH2(url);
    await h2get(session, '/version');
    const closed = new Promise((resolve) => session.once('close', resolve));
    await app.close();
    await closed;
    expect(session.closed || session.destroyed).toBe(true);
  });
});
