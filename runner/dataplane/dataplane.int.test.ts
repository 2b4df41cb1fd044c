import { createHash, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { mkdtemp } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDataplane, type Dataplane } from '../../infra/local/dataplane.mjs';
import { VIEWER_ADDRESS_HEADERS } from '../../services/room/viewer-copies/copy-proxy.js';
import { copyOriginKey } from '../../services/core/rules/copy-origin-key.js';
import { copyCookie, copyTokens, personalClaims } from '../../services/room/viewer-copies/copy-token.js';
import { personalHeaders, VIEWER_COMPANY_HEADER, VIEWER_NAME_HEADER } from '../../services/room/personal.js';
import { viewCookie } from '../../services/room/content/view-token.js';
import { waitFor } from '../../test/support/wait-for.js';
import { activitySince } from './activity.js';
import { dataplaneRoutes } from './routes.js';

// The data plane (HAProxy, infra/dataplane/haproxy.cfg.tmpl) between a viewer and a stand-in copy:
// a request with a valid copy token goes straight to the copy with the room's header rules
// applied; anything else goes to the room (a stand-in answering "room"); forged and expired tokens
// are refused; removing a route ends the copy's open WebSocket at once; a personalised copy is told
// who views it from the token, and never what the viewer says of themselves.

const room = 'http://127.0.0.1:8080';
const key = randomBytes(32).toString('hex');
const tokens = copyTokens(key);
let dataplane: Dataplane;
let copyPort: number;
let roomPort: number;
const servers: http.Server[] = [];
const seenByCopy: http.IncomingHttpHeaders[] = [];

async function listen(server: http.Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A copy as demos answer: cookies with Domain, its own framing policy, a Clear-Site-Data. */
function standInCopy() {
  const server = http.createServer((req, res) => {
    seenByCopy.push(req.headers);
    res.setHeader('x-served-by', 'copy');
    res.setHeader('x-frame-options', 'ALLOWALL');
    res.setHeader('x-content-type-options', 'sniff-away');
    res.setHeader('content-security-policy', "default-src 'self'; frame-ancestors *, frame-ancestors https://evil.example");
    res.setHeader('set-cookie', ['a=1; Domain=rooms.localhost; Path=/', 'b=2;domain=.localhost', `${viewCookie}=forged; Path=/`]);
    res.setHeader('clear-site-data', '"cookies", "cache", "storage"');
    res.end(JSON.stringify({ ok: true }));
  });
  // A WebSocket that upgrades and then stays silent (a dashboard waiting for pushes).
  server.on('upgrade', (req, socket) => {
    seenByCopy.push(req.headers);
    const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: ${accept}\r\n\r\n`,
    );
    socket.on('error', () => {});
  });
  return server;
}

const session = randomUUID();
const copyId = randomUUID();
const host = `demo--${copyOriginKey(session)}.rooms.localhost:8080`;
const tokenFor = (claims: Partial<{ lbl: string; sid: string; cid: string; vn: string; vc: string }> = {}, now = Date.now()) =>
  tokens.sign({ lbl: copyOriginKey(session), sid: session, cid: copyId, ...claims }, now);

/** A request as a browser on the copy origin sends it (fetch cannot set Host). */
function get(
  headers: Record<string, string>,
  path = '/api',
  agent: http.Agent | false = false,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: dataplane.port, path, headers: { host, ...headers }, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
  });
}

beforeAll(async () => {
  copyPort = await listen(standInCopy());
  roomPort = await listen(http.createServer((_req, res) => res.writeHead(200, { 'x-served-by': 'room' }).end('room')));
  const port = await listen(http.createServer()).then(async (p) => {
    await new Promise((r) => servers.pop()!.close(r));
    return p;
  });
  dataplane = await startDataplane({
    dir: await mkdtemp(join(tmpdir(), 'dataplane-test-')),
    port,
    room: `127.0.0.1:${roomPort}`,
    frameAncestors: room,
    tokenKey: key,
  });
});

afterAll(async () => {
  await dataplane?.stop();
  for (const s of servers) s.close();
});

describe('the data plane', () => {
  it("drops the same viewer-address headers as the room's proxy", () => {
    const template = readFileSync(new URL('../../infra/dataplane/haproxy.cfg.tmpl', import.meta.url), 'utf8');
    const dataplaneDrops = [...template.matchAll(/^ +http-request del-header (\S+)$/gm)].map((m) => m[1]);
    // The cookies (set again without the room's) come before them; the personal headers, in every
    // spelling, after (set again from the token: the next tests).
    expect(dataplaneDrops).toEqual(['cookie', ...VIEWER_ADDRESS_HEADERS]);
  });

  it('passes no spelling of the viewer headers a server may read as the same name (L3)', async () => {
    await dataplaneRoutes(dataplane).set({ sessionId: session, host: '127.0.0.1', port: copyPort, copyId });
    // Node keeps each spelling apart, as it came: the copy sees exactly what HAProxy passed on.
    const spellings = {
      X_Demo_Viewer_Name: 'Mallory',
      x_demo_viewer_company: 'EvilCo',
      'X-Demo_Viewer-Name': 'Mallory2',
      'x-demo-viewer_company': 'EvilCo2',
      'X-DEMO-VIEWER-NAME': 'Mallory3',
      'X-Demo-Viewer-Role': 'admin',
    };
    const direct = await get({ cookie: `${copyCookie}=${tokenFor()}`, 'sec-fetch-dest': 'empty', ...spellings });
    expect(direct.headers['x-served-by']).toBe('copy');
    const passed = Object.keys(seenByCopy.at(-1)!).filter((name) => /demo.viewer/i.test(name));
    expect(passed).toEqual([]);
  });

  it("never passes the room's copy token on, however many times the cookie is sent (L4)", async () => {
    await dataplaneRoutes(dataplane).set({ sessionId: session, host: '127.0.0.1', port: copyPort, copyId });
    const token = tokenFor();
    const cookie = `${copyCookie}=${token}; theirs=1; ${copyCookie}=${token}; ${viewCookie}=v; ${viewCookie}=w; also=2`;
    expect((await get({ cookie, 'sec-fetch-dest': 'empty' })).headers['x-served-by']).toBe('copy');
    expect(seenByCopy.at(-1)!.cookie).toBe('theirs=1; also=2');
  });

  it('takes a request with a valid token straight to the copy, with the room header rules, and the rest to the room', async () => {
    const routes = dataplaneRoutes(dataplane);
    await routes.set({ sessionId: session, host: '127.0.0.1', port: copyPort, copyId });
    const cookie = `${viewCookie}=view; theirs=1; ${copyCookie}=${tokenFor()}; also=2`;
    const direct = await get({ cookie, 'x-forwarded-for': '203.0.113.9', forwarded: 'for=203.0.113.9', 'sec-fetch-dest': 'empty' });
    expect(direct.headers['x-served-by']).toBe('copy');
    // The room's rules on the copy's answer (copy-response-headers.ts).
    expect(direct.headers['x-frame-options']).toBeUndefined();
    expect(direct.headers['x-content-type-options']).toBe('nosniff');
    const policies = String(direct.headers['content-security-policy'])
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    expect(policies).toEqual(["default-src 'self'", `frame-ancestors ${room}`]);
    expect(direct.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2', '__pp_reserved=; Max-Age=0']);
    expect(direct.headers['clear-site-data']).toBe('"cache", "storage"');
    // What the copy saw: none of the room's cookies, nothing of the viewer's address.
    const seen = seenByCopy.at(-1)!;
    expect(seen.cookie).toBe('theirs=1; also=2');
    expect(seen['x-forwarded-for']).toBeUndefined();
    expect(seen.forwarded).toBeUndefined();
    expect(seen['x-forwarded-host']).toBe(host);

    // The room's: no token, its own paths, page loads, service worker scripts.
    expect((await get({})).body).toBe('room');
    expect((await get({ cookie }, '/__pp/enter')).body).toBe('room');
    expect((await get({ cookie, 'sec-fetch-dest': 'iframe' })).body).toBe('room');
    expect((await get({ cookie, accept: 'text/html' })).body).toBe('room');
    expect((await get({ cookie, 'sec-fetch-dest': 'script', 'service-worker': 'script' })).body).toBe('room');
    // A token for another copy of the session (replaced since): the room decides.
    expect((await get({ cookie: `${copyCookie}=${tokenFor({ cid: randomUUID() })}` })).body).toBe('room');
  });

  it("answers the room's own hop that finds no route itself, as no copy answering (sent back, it would reach the room without the viewer's cookies)", async () => {
    const routes = dataplaneRoutes(dataplane);
    await routes.set({ sessionId: session, host: '127.0.0.1', port: copyPort, copyId });
    const hop = { cookie: `${copyCookie}=${tokenFor()}`, 'sec-fetch-dest': 'empty', 'x-pp-room-hop': '1' };
    expect((await get(hop)).headers['x-served-by']).toBe('copy');
    // Replaced since: the token names another copy.
    const replaced = await get({ ...hop, cookie: `${copyCookie}=${tokenFor({ cid: randomUUID() })}` });
    expect([replaced.status, replaced.headers['x-pp-dataplane-error']]).toEqual([503, '1']);
    await routes.remove(session);
    const gone = await get(hop);
    expect([gone.status, gone.headers['x-pp-dataplane-error'], gone.body]).toEqual([503, '1', 'The demo is not answering.']);
  });

  it('refuses a forged token, an expired one and one for another copy origin', async () => {
    await dataplaneRoutes(dataplane).set({ sessionId: session, host: '127.0.0.1', port: copyPort, copyId });
    const forged = copyTokens(randomBytes(32).toString('hex')).sign({ lbl: copyOriginKey(session), sid: session, cid: copyId });
    const expired = tokenFor({}, Date.now() - 301_000);
    const elsewhere = tokenFor({ lbl: copyOriginKey(randomUUID()) });
    const [head, body] = tokenFor().split('.');
    const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${body}.`;
    for (const token of [forged, expired, elsewhere, unsigned, `${head}.${body}.AAAA`, 'garbage'])
      expect((await get({ cookie: `${copyCookie}=${token}` })).status).toBe(403);
  });

  it('checks every token on a keep-alive connection, not only its first', async () => {
    await dataplaneRoutes(dataplane).set({ sessionId: session, host: '127.0.0.1', port: copyPort, copyId });
    const one = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const valid = `${copyCookie}=${tokenFor()}`;
    const forged = `${copyCookie}=${copyTokens(randomBytes(32).toString('hex')).sign({ lbl: copyOriginKey(session), sid: session, cid: copyId })}`;
    const statuses = [];
    for (const cookie of [valid, valid, forged, valid, `${copyCookie}=${tokenFor({}, Date.now() - 301_000)}`])
      statuses.push((await get({ cookie }, '/api', one)).status);
    one.destroy();
    expect(statuses).toEqual([200, 200, 403, 200, 403]);
  });

  describe('personalised copies', () => {
    // As the room mints them for a build with `personalise: true` (copy-gateway.ts).
    const viewer = { viewerName: "Zoë O'Brien-Ångström", viewerCompany: 'Ünïcode & Co. (北京)' };
    const personal = personalClaims(personalHeaders(viewer, { personalise: true }));
    const forgedHeaders = { [VIEWER_NAME_HEADER]: 'Mallory', [VIEWER_COMPANY_HEADER]: 'Evil%20Corp' };
    const viewerSeen = (seen: http.IncomingHttpHeaders) => [seen[VIEWER_NAME_HEADER], seen[VIEWER_COMPANY_HEADER]];

    /** A WebSocket upgrade through the data plane; the headers the copy saw with it. */
    async function upgrade(cookie: string, extra: Record<string, string>): Promise<http.IncomingHttpHeaders> {
      const socket = net.connect(dataplane.port, '127.0.0.1');
      let answer = '';
      socket.on('data', (d) => (answer += d));
      socket.write(
        `GET /ws HTTP/1.1\r\nhost: ${host}\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n` +
          `sec-websocket-version: 13\r\ncookie: ${cookie}\r\n${Object.entries(extra)
            .map(([name, value]) => `${name}: ${value}\r\n`)
            .join('')}\r\n`,
      );
      await waitFor('the upgrade', async () => answer.startsWith('HTTP/1.1 101'));
      socket.destroy();
      return seenByCopy.at(-1)!;
    }

    it("tells the copy who views it from the token's claims, exactly, and never what the viewer sent", async () => {
      await dataplaneRoutes(dataplane).set({ sessionId: session, host: '127.0.0.1', port: copyPort, copyId });
      expect(personal).toEqual({ vn: encodeURIComponent(viewer.viewerName), vc: encodeURIComponent(viewer.viewerCompany) });
      const cookie = `${copyCookie}=${tokenFor(personal)}`;
      const direct = await get({ cookie, ...forgedHeaders });
      expect(direct.headers['x-served-by']).toBe('copy');
      const seen = viewerSeen(seenByCopy.at(-1)!);
      expect(seen).toEqual([personal.vn, personal.vc]);
      expect(seen.map((v) => decodeURIComponent(String(v)))).toEqual([viewer.viewerName, viewer.viewerCompany]);
      // And on a WebSocket upgrade.
      expect(viewerSeen(await upgrade(cookie, forgedHeaders))).toEqual([personal.vn, personal.vc]);
      // One claim alone: that header alone.
      await get({ cookie: `${copyCookie}=${tokenFor({ vc: personal.vc })}`, ...forgedHeaders });
      expect(viewerSeen(seenByCopy.at(-1)!)).toEqual([undefined, personal.vc]);
    });

    it('tells a copy whose token has no such claims nothing, forged or not', async () => {
      await dataplaneRoutes(dataplane).set({ sessionId: session, host: '127.0.0.1', port: copyPort, copyId });
      const cookie = `${copyCookie}=${tokenFor()}`;
      expect((await get({ cookie, ...forgedHeaders })).headers['x-served-by']).toBe('copy');
      expect(viewerSeen(seenByCopy.at(-1)!)).toEqual([undefined, undefined]);
      expect(viewerSeen(await upgrade(cookie, forgedHeaders))).toEqual([undefined, undefined]);
    });

    it('keeps to the token checked on the connection: a later token without the claims gets none, an altered one 403', async () => {
      await dataplaneRoutes(dataplane).set({ sessionId: session, host: '127.0.0.1', port: copyPort, copyId });
      const one = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const named = tokenFor(personal);
      const [head, body, signature] = named.split('.');
      const claims = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8'));
      const altered = `${head}.${Buffer.from(JSON.stringify({ ...claims, vn: 'Someone%20Else' })).toString('base64url')}.${signature}`;
      const seen: unknown[] = [];
      const statuses: number[] = [];
      for (const token of [named, named, altered, tokenFor(), named]) {
        const answer = await get({ cookie: `${copyCookie}=${token}`, ...forgedHeaders }, '/api', one);
        statuses.push(answer.status);
        seen.push(answer.status === 200 ? viewerSeen(seenByCopy.at(-1)!) : 'refused');
      }
      one.destroy();
      expect(statuses).toEqual([200, 200, 403, 200, 200]);
      const told = [personal.vn, personal.vc];
      expect(seen).toEqual([told, told, 'refused', [undefined, undefined], told]);
      // On a connection of its own too.
      expect((await get({ cookie: `${copyCookie}=${altered}` })).status).toBe(403);
    });
  });

  it("closes a copy's open WebSocket at once when its route goes, and counts its use", async () => {
    const routes = dataplaneRoutes(dataplane);
    await routes.set({ sessionId: session, host: '127.0.0.1', port: copyPort, copyId });
    const socket = net.connect(dataplane.port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += d));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(
      `GET /ws HTTP/1.1\r\nhost: ${host}\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n` +
        `sec-websocket-version: 13\r\ncookie: ${copyCookie}=${tokenFor()}\r\n\r\n`,
    );
    await waitFor('the upgrade', async () => answer.startsWith('HTTP/1.1 101'));
    const used = activitySince();
    expect(await used(dataplane.adminSocket)).toContain(copyOriginKey(session));

    const removed = Date.now();
    await routes.remove(session);
    await closed;
    expect(Date.now() - removed).toBeLessThan(1_000);
    // And the next request with the same (valid) token goes to the room, which knows the copy is gone.
    expect((await get({ cookie: `${copyCookie}=${tokenFor()}` })).body).toBe('room');
  });

  it('replaces the whole map at once', async () => {
    const routes = dataplaneRoutes(dataplane);
    const other = randomUUID();
    await routes.set({ sessionId: other, host: '127.0.0.1', port: copyPort, copyId });
    await routes.replaceAll([{ sessionId: session, host: '127.0.0.1', port: copyPort, copyId }]);
    expect([...(await routes.list()).keys()]).toEqual([copyOriginKey(session)]);
  });

  it("closes the open WebSockets of a route the runner's start drops, and keeps the others' (L2)", async () => {
    const routes = dataplaneRoutes(dataplane);
    // A second copy, on an address of its own: the one whose link went while the runner was down.
    const droppedPort = await listen(standInCopy());
    const dropped = randomUUID();
    const droppedCopy = randomUUID();
    await routes.set({ sessionId: dropped, host: '127.0.0.1', port: droppedPort, copyId: droppedCopy });
    await routes.set({ sessionId: session, host: '127.0.0.1', port: copyPort, copyId });
    const open = async (sid: string, cid: string) => {
      const socket = net.connect(dataplane.port, '127.0.0.1');
      let answer = '';
      socket.on('data', (d) => (answer += d));
      socket.on('error', () => {});
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      const label = copyOriginKey(sid);
      socket.write(
        `GET /ws HTTP/1.1\r\nhost: demo--${label}.rooms.localhost:8080\r\nupgrade: websocket\r\nconnection: Upgrade\r\n` +
          `sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n` +
          `cookie: ${copyCookie}=${tokens.sign({ lbl: label, sid, cid })}\r\n\r\n`,
      );
      await waitFor('the upgrade', async () => answer.startsWith('HTTP/1.1 101'));
      return { socket, closed };
    };
    const gone = await open(dropped, droppedCopy);
    const kept = await open(session, copyId);
    const replaced = Date.now();
    await routes.replaceAll([{ sessionId: session, host: '127.0.0.1', port: copyPort, copyId }]);
    await Promise.race([gone.closed, new Promise((r) => setTimeout(r, 2_000))]);
    expect(gone.socket.destroyed).toBe(true);
    expect(Date.now() - replaced).toBeLessThan(1_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(kept.socket.destroyed).toBe(false);
    kept.socket.destroy();
  });
});
