import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCopyProxy, withoutCookies, type ActivityKind, type CopyTarget } from './copy-proxy.js';
import { demoBundle } from '../../../test/support/runner/demo-bundle.js';
import { seedContainerBuild, seedWorkspace } from '../../../test/support/runner/seed.js';
import { startTestRunner, type TestRunner } from '../../../test/support/runner/test-runner.js';

// The room's proxy helper against a real copy: HTTP and WebSocket, activity, errors.
let runner: TestRunner;
let target: CopyTarget;
let server: http.Server;
let base: string;
const activity: ActivityKind[] = [];
const proxy = createCopyProxy({
  onActivity: (_t, kind) => activity.push(kind),
  dropCookies: ['room_grant'],
  wsTickMs: 200,
  proxyTimeoutMs: 5_000,
});
let route: CopyTarget;

beforeAll(async () => {
  const bundle = await demoBundle();
  runner = await startTestRunner();
  const b = await seedContainerBuild(runner.sql, runner.storage, bundle, { workspaceId: await seedWorkspace(runner.sql) });
  const session = randomUUID();
  await runner.client.enter(session, { workspaceId: b.workspaceId, projectId: b.projectId, buildId: b.buildId });
  const v = await runner.until(session, ['running']);
  target = { ...(await runner.addressOf(v.copyId!)), sessionId: session };
  route = target;
  server = http.createServer((req, res) => proxy.web(req, res, route));
  server.on('upgrade', (req, socket, head) => proxy.ws(req, socket, head, route));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  proxy.close();
  server?.close();
  await runner?.close();
});

/** A WebSocket handshake and one masked text frame, read back from the echo. */
function wsEcho(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const { port } = server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    let handshaken = false;
    socket.on('data', (chunk) => {
      if (!handshaken) {
        if (!chunk.toString().startsWith('HTTP/1.1 101')) return reject(new Error(chunk.toString()));
        handshaken = true;
        const payload = Buffer.from(text);
        const mask = Buffer.from([1, 2, 3, 4]);
        socket.write(Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, payload.map((b, i) => b ^ mask[i % 4])]));
        return;
      }
      resolve(chunk.subarray(2, 2 + (chunk[1] & 0x7f)).toString());
      setTimeout(() => socket.destroy(), 500);
    });
    socket.write(
      `GET /ws HTTP/1.1\r\nHost: copy.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${Buffer.from('0123456789abcdef').toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
  });
}

describe('copy proxy', () => {
  it('carries HTTP to the copy and reports activity', async () => {
    activity.length = 0;
    const res = await fetch(`${base}/some/page?x=1`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ path: '/some/page', port: target.port });
    expect(activity).toContain('http');
  });

  it('carries WebSockets both ways, counts an open socket as activity, and knows it is open', async () => {
    activity.length = 0;
    expect(await wsEcho('hello copy')).toBe('hello copy');
    expect(proxy.openSockets(target)).toBe(1);
    expect(activity).toContain('ws-open');
  });

  it("never passes the room's own cookie to the copy", () => {
    expect(withoutCookies('room_grant=abc; theme=dark', ['room_grant'])).toBe('theme=dark');
    expect(withoutCookies('room_grant=abc', ['room_grant'])).toBeUndefined();
  });

  it('answers 502 when the copy does not answer, instead of hanging', async () => {
    route = { host: target.host, port: target.port + 1 };
    try {
      const res = await fetch(`${base}/`);
      expect(res.status).toBe(502);
    } finally {
      route = target;
    }
  });
});

/** Listens on a loopback port of its own; resolves with the port. */
async function listening(s: http.Server): Promise<number> {
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return (s.address() as AddressInfo).port;
}

describe('a WebSocket the viewer closes', () => {
  it("takes the copy's half down with it, and the room's server still closes", async () => {
    // A copy whose server, like the demo's and any node:http one, keeps an upgraded socket half
    // open when the other side sends its FIN: it never closes its own half.
    const copySides: Socket[] = [];
    const copy = http.createServer();
    copy.on('upgrade', (_req, socket: Socket) => {
      copySides.push(socket);
      socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
    });
    const copyPort = await listening(copy);
    const own = createCopyProxy();
    const room = http.createServer();
    room.on('upgrade', (req, socket, head) => own.ws(req, socket, head, { host: '127.0.0.1', port: copyPort }));
    const roomPort = await listening(room);
    try {
      const viewer = connect(roomPort, '127.0.0.1');
      const upgraded = new Promise<void>((resolve) => viewer.once('data', () => resolve()));
      viewer.write('GET /ws HTTP/1.1\r\nHost: copy.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
      await upgraded;
      expect(own.openSockets()).toBe(1);
      const copySawIt = new Promise<void>((resolve) => copySides[0].once('end', () => resolve()));
      // The viewer goes (a tab closed): the room is never asked to end anything.
      viewer.destroy();
      await copySawIt;
      // server.close() answers only once every socket, upgraded ones too, has closed: it used to wait forever.
      await new Promise<void>((resolve, reject) => room.close((err) => (err ? reject(err) : resolve())));
      expect(own.openSockets()).toBe(0);
    } finally {
      own.close();
      room.close();
      for (const s of copySides) s.destroy();
      copy.close();
    }
  });
});
