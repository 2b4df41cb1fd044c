import { createHash } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/support/wait-for.js';
import { viewCookie } from '../content/view-token.js';
import { ROOM_COOKIES } from './copy-gateway.js';
import { createCopyProxy, type CopyTarget } from './copy-proxy.js';
import { copyCookie } from './copy-token.js';

// The room's own path to a copy (a page load, a request without a token, a host without a data
// plane), as the copy gateway builds its proxy: neither of the room's cookies reaches the copy
// (security-4.md L4), nor any spelling of the viewer headers but the room's own (L3), on HTTP and
// on a WebSocket upgrade alike. The copy is a stand-in that records what it was sent.

const seen: http.IncomingHttpHeaders[] = [];
const servers: http.Server[] = [];
const proxy = createCopyProxy({ dropCookies: ROOM_COOKIES });
let target: CopyTarget;
let roomPort: number;

async function listen(server: http.Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  const copy = http.createServer((req, res) => {
    seen.push(req.headers);
    res.end('copy');
  });
  copy.on('upgrade', (req, socket) => {
    seen.push(req.headers);
    const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: ${accept}\r\n\r\n`,
    );
    socket.on('error', () => {});
  });
  target = { host: '127.0.0.1', port: await listen(copy), viewerHeaders: { 'x-demo-viewer-name': 'Ada' } };
  const room = http.createServer((req, res) => proxy.web(req, res, target));
  room.on('upgrade', (req, socket, head) => proxy.ws(req, socket, head, target));
  roomPort = await listen(room);
});

afterAll(() => {
  proxy.close();
  for (const s of servers) s.close();
});

const cookie = `${viewCookie}=view; theirs=1; ${copyCookie}=TOKEN; also=2`;
const spellings = {
  X_Demo_Viewer_Name: 'Mallory',
  x_demo_viewer_company: 'EvilCo',
  'X-Demo_Viewer-Company': 'EvilCo2',
  'X-DEMO-VIEWER-NAME': 'Mallory3',
};
/** The viewer headers the copy was sent, by name. */
const viewerHeaders = (headers: http.IncomingHttpHeaders) => Object.entries(headers).filter(([name]) => /demo.viewer/i.test(name));

describe("the room's proxy to a copy", () => {
  it("passes neither of the room's cookies, nor the viewer's own viewer headers, on a request", async () => {
    const answer = await fetch(`http://127.0.0.1:${roomPort}/api`, { headers: { cookie, ...spellings } });
    expect(await answer.text()).toBe('copy');
    expect(seen.at(-1)!.cookie).toBe('theirs=1; also=2');
    expect(viewerHeaders(seen.at(-1)!)).toEqual([['x-demo-viewer-name', 'Ada']]);
  });

  it('nor on a WebSocket upgrade', async () => {
    const socket = net.connect(roomPort, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += d));
    socket.write(
      `GET /ws HTTP/1.1\r\nhost: copy.example\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n` +
        `sec-websocket-version: 13\r\ncookie: ${cookie}\r\n${Object.entries(spellings)
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join('')}\r\n`,
    );
    await waitFor('the upgrade', async () => answer.startsWith('HTTP/1.1 101'));
    socket.destroy();
    expect(seen.at(-1)!.cookie).toBe('theirs=1; also=2');
    expect(viewerHeaders(seen.at(-1)!)).toEqual([['x-demo-viewer-name', 'Ada']]);
  });
});
