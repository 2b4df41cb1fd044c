import { createHash, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { mkdtemp } from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDataplane, type Dataplane, type DataplaneLimits } from '../../infra/local/dataplane.mjs';
import { copyOriginKey } from '../../services/core/rules/copy-origin-key.js';
import { registry } from '../../services/core/infra/metrics.js';
import { copyCookie, copyTokens } from '../../services/room/viewer-copies/copy-token.js';
import { waitFor } from '../../test/support/wait-for.js';
import { refusalsCounter } from './refusals.js';
import { dataplaneRoutes } from './routes.js';

// A crowd of one cannot close the data plane (issue 44 item 2; security-4.md H2): real HAProxy
// from the project's template, with its limits set small, in front of stand-in copies. One viewer
// holding idle WebSockets past its copy's cap, or connections past its address's cap, or
// requests past its copy's rate, is refused (429, or the connection closed) and counted in
// dataplane_refused_total, while another tenant's viewer is served at once; a silent WebSocket is
// closed after the idle setting.

const key = randomBytes(32).toString('hex');
const tokens = copyTokens(key);
const servers: http.Server[] = [];
const sockets: net.Socket[] = [];
const planes: Dataplane[] = [];

async function listen(server: http.Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A copy that answers requests and upgrades WebSockets, then stays silent. */
function standInCopy() {
  const server = http.createServer((_req, res) => res.writeHead(200, { 'x-served-by': 'copy' }).end('copy'));
  server.on('upgrade', (req, socket) => {
    const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: ${accept}\r\n\r\n`,
    );
    socket.on('error', () => {});
  });
  return server;
}

let copyPort: number;
let roomPort: number;

async function freePort(): Promise<number> {
  const probe = http.createServer();
  const port = await listen(probe);
  servers.pop();
  await new Promise((r) => probe.close(r));
  return port;
}

async function dataplaneWith(limits: Partial<DataplaneLimits>): Promise<Dataplane> {
  const plane = await startDataplane({
    dir: await mkdtemp(join(tmpdir(), 'dataplane-limits-')),
    port: await freePort(),
    room: `127.0.0.1:${roomPort}`,
    frameAncestors: 'http://127.0.0.1:8080',
    tokenKey: key,
    limits: { maxConnPerSource: 1000, maxConnPerCopy: 1000, copyRequestsPer10s: 100_000, tunnelIdleS: 300, ...limits },
  });
  planes.push(plane);
  return plane;
}

/** A copy with a route on `plane`: its Host header and its viewer's token cookie. */
async function copyOn(plane: Dataplane) {
  const session = randomUUID();
  const copyId = randomUUID();
  await dataplaneRoutes(plane).set({ sessionId: session, host: '127.0.0.1', port: copyPort, copyId });
  return {
    host: `demo--${copyOriginKey(session)}.rooms.localhost:8080`,
    cookie: `${copyCookie}=${tokens.sign({ lbl: copyOriginKey(session), sid: session, cid: copyId })}`,
  };
}

type Answer = { status: number; headers: http.IncomingHttpHeaders; body: string; ms: number };

/** One request on a fresh connection, from `localAddress` (127.0.0.1 unless said). */
function get(plane: Dataplane, headers: Record<string, string>, localAddress = '127.0.0.1'): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: plane.port, path: '/api', headers, agent: false, localAddress }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body, ms: performance.now() - started }));
    });
    req.on('error', reject);
  });
}

/** Opens a WebSocket through `plane` and keeps it open: its status line (101 upgraded, 429 refused) and the socket. */
async function openWebSocket(
  plane: Dataplane,
  copy: { host: string; cookie: string },
): Promise<{ status: string; answer: () => string; socket: net.Socket }> {
  const socket = net.connect(plane.port, '127.0.0.1');
  sockets.push(socket);
  socket.on('error', () => {});
  let answer = '';
  socket.on('data', (d) => (answer += d));
  socket.write(
    `GET /ws HTTP/1.1\r\nhost: ${copy.host}\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-fetch-dest: websocket\r\n` +
      `sec-websocket-key: ${randomBytes(16).toString('base64')}\r\nsec-websocket-version: 13\r\ncookie: ${copy.cookie}\r\n\r\n`,
  );
  await waitFor('an answer to the upgrade', async () => /^HTTP\/1\.1 \d{3}/.test(answer), 5_000, 10);
  return { status: answer.slice(9, 12), answer: () => answer, socket };
}

/** The runner's counter as /ops/metrics serves it, per limit. */
async function refused(limit: string): Promise<number> {
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`dataplane_refused_total{limit="${limit}"}`));
  return Number(line?.split(' ')[1] ?? 0);
}

beforeAll(async () => {
  copyPort = await listen(standInCopy());
  roomPort = await listen(http.createServer((_req, res) => res.writeHead(200, { 'x-served-by': 'room' }).end('room page')));
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  for (const p of planes) await p.stop();
  for (const s of servers) s.close();
});

describe("the data plane's limits", () => {
  it("refuses one viewer's idle WebSockets past its copy's cap, counts them, and serves another tenant at once", async () => {
    const plane = await dataplaneWith({ maxConnPerCopy: 8 });
    const count = refusalsCounter();
    await count(plane.adminSocket);
    const before = await refused('copy_connections');
    const abuser = await copyOn(plane);
    const other = await copyOn(plane);

    // One source, one token: the cap's worth upgrade and stay open, idle; the rest are refused.
    const opened = [];
    for (let i = 0; i < 14; i++) opened.push(await openWebSocket(plane, abuser));
    expect(opened.map((o) => o.status)).toEqual([...Array(8).fill('101'), ...Array(6).fill('429')]);
    const refusal = opened.at(-1)!.answer();
    expect(refusal).toMatch(/\r\nretry-after: 5\r\n/i);
    expect(refusal.slice(refusal.indexOf('\r\n\r\n') + 4)).toBe('{"error":"too many connections to this demo","reason":"rate"}');
    expect(opened.slice(0, 8).every((o) => !o.socket.destroyed)).toBe(true);

    // Another tenant's viewer, while the eight stay open: their page (the room's) and their copy's requests, each in < 1 s.
    const page = await get(plane, { host: other.host, cookie: other.cookie, 'sec-fetch-dest': 'iframe' });
    expect([page.status, page.body]).toEqual([200, 'room page']);
    expect(page.ms).toBeLessThan(1_000);
    const direct = await get(plane, { host: other.host, cookie: other.cookie, 'sec-fetch-dest': 'empty' });
    expect([direct.status, direct.headers['x-served-by']]).toEqual([200, 'copy']);
    expect(direct.ms).toBeLessThan(1_000);

    await count(plane.adminSocket);
    expect((await refused('copy_connections')) - before).toBe(6);
  });

  it("closes connections past one address's cap at once, counts them, and serves another address", async () => {
    const plane = await dataplaneWith({ maxConnPerSource: 5 });
    const count = refusalsCounter();
    await count(plane.adminSocket);
    const before = await refused('source_connections');
    const copy = await copyOn(plane);

    // Five idle connections (no request at all) hold the address's slots.
    const idle: net.Socket[] = [];
    for (let i = 0; i < 5; i++) {
      const s = net.connect(plane.port, '127.0.0.1');
      sockets.push(s);
      await new Promise((r) => s.once('connect', r));
      idle.push(s);
    }
    await new Promise((r) => setTimeout(r, 100));
    // The sixth from the same address is closed before it is answered.
    await expect(get(plane, { host: copy.host, cookie: copy.cookie, 'sec-fetch-dest': 'empty' })).rejects.toThrow();
    expect(idle.every((s) => !s.destroyed)).toBe(true);

    // Another address (127.0.0.2 is loopback too) is served, in < 1 s.
    const other = await get(plane, { host: copy.host, cookie: copy.cookie, 'sec-fetch-dest': 'empty' }, '127.0.0.2');
    expect([other.status, other.headers['x-served-by']]).toEqual([200, 'copy']);
    expect(other.ms).toBeLessThan(1_000);

    await count(plane.adminSocket);
    expect((await refused('source_connections')) - before).toBe(1);
    // The address's slots come back as its connections close.
    for (const s of idle) s.destroy();
    await waitFor(
      'a slot again',
      async () => (await get(plane, { host: copy.host, cookie: copy.cookie, 'sec-fetch-dest': 'empty' }).catch(() => null))?.status === 200,
    );
  });

  it("answers 429 past a copy's request rate, counts it, and leaves another copy's rate alone", async () => {
    const plane = await dataplaneWith({ copyRequestsPer10s: 20 });
    const count = refusalsCounter();
    await count(plane.adminSocket);
    const before = await refused('copy_rate');
    const hurried = await copyOn(plane);
    const other = await copyOn(plane);
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++)
      statuses.push((await get(plane, { host: hurried.host, cookie: hurried.cookie, 'sec-fetch-dest': 'empty' })).status);
    expect(statuses).toEqual([...Array(20).fill(200), ...Array(5).fill(429)]);
    const last = await get(plane, { host: hurried.host, cookie: hurried.cookie, 'sec-fetch-dest': 'empty' });
    expect([last.status, last.headers['retry-after'], last.body]).toEqual([
      429,
      '10',
      '{"error":"too many requests to this demo","reason":"rate"}',
    ]);
    const served = await get(plane, { host: other.host, cookie: other.cookie, 'sec-fetch-dest': 'empty' });
    expect([served.status, served.headers['x-served-by']]).toEqual([200, 'copy']);
    await count(plane.adminSocket);
    expect((await refused('copy_rate')) - before).toBe(6);
  });

  it('closes a WebSocket silent both ways after the idle setting', async () => {
    const plane = await dataplaneWith({ tunnelIdleS: 1 });
    const ws = await openWebSocket(plane, await copyOn(plane));
    expect(ws.status).toBe('101');
    const opened = Date.now();
    await new Promise<void>((resolve) => (ws.socket.destroyed ? resolve() : ws.socket.once('close', () => resolve())));
    // One second of silence, then closed (HAProxy checks its timeouts as it goes: within a second more).
    expect(Date.now() - opened).toBeGreaterThanOrEqual(900);
    expect(Date.now() - opened).toBeLessThan(3_000);
  });
});
