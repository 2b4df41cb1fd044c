import { createHash, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { mkdtemp } from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDataplane, type Dataplane } from '../../infra/local/dataplane.mjs';
import { copyOriginKey } from '../../services/core/rules/copy-origin-key.js';
import { createSql, type Sql } from '../../services/core/infra/db.js';
import { createLogger } from '../../services/core/infra/log.js';
import { insertCopy, transition } from '../../services/data/copies.sql.js';
import { createSession } from '../../services/data/room-sessions.sql.js';
import { copyCookie, copyTokens } from '../../services/room/viewer-copies/copy-token.js';
import { seedBuildRecords, seedWorkspace } from '../../test/support/runner/seed.js';
import { testEnv } from '../../test/support/services.js';
import { waitFor } from '../../test/support/wait-for.js';
import type { RunnerContext } from '../service/runner-context.js';
import { createRouteSync } from './route-sync.js';
import { dataplaneRoutes } from './routes.js';

// The runner's side of the data plane against the records in Postgres: a running copy of a
// standing session gets a route; a takedown of its project (which leaves the copy running) takes
// the route away at the next sync and ends the copy's open WebSocket; a copy that ends loses it too.

const key = randomBytes(32).toString('hex');
let sql: Sql;
let dataplane: Dataplane;
let copy: http.Server;
let copyPort: number;

beforeAll(async () => {
  sql = createSql(testEnv().DATABASE_URL, { max: 2 });
  copy = http.createServer((_req, res) => res.end('copy'));
  copy.on('upgrade', (req, socket) => {
    const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: ${accept}\r\n\r\n`,
    );
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => copy.listen(0, '127.0.0.1', resolve));
  copyPort = (copy.address() as AddressInfo).port;
  const port = await new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port: p } = probe.address() as AddressInfo;
      probe.close(() => resolve(p));
    });
  });
  dataplane = await startDataplane({
    dir: await mkdtemp(join(tmpdir(), 'route-sync-test-')),
    port,
    room: '127.0.0.1:9',
    frameAncestors: 'http://127.0.0.1:8080',
    tokenKey: key,
  });
});

afterAll(async () => {
  await dataplane?.stop();
  copy?.close();
  await sql?.end({ timeout: 2 });
});

/** A project with a live container build, a preview session in it and a running copy of that session at the stand-in. */
async function runningCopy(runnerId: string) {
  const { workspaceId, projectId, buildId } = await seedBuildRecords(sql, await seedWorkspace(sql));
  const { session } = await createSession(sql, { workspaceId, projectId, linkId: null, entryKey: randomUUID(), preview: true });
  const row = await insertCopy(sql, {
    id: randomUUID(),
    runnerId,
    workspaceId,
    projectId,
    buildId,
    sessionId: session.id,
    origin: 'viewer',
    state: 'creating',
  });
  await transition(sql, row.id, ['creating'], 'running', { set: { host: '127.0.0.1', port: copyPort } });
  return { projectId, sessionId: session.id, copyId: row.id };
}

function openSocket(sessionId: string, copyId: string) {
  const token = copyTokens(key).sign({ lbl: copyOriginKey(sessionId), sid: sessionId, cid: copyId });
  const socket = net.connect(dataplane.port, '127.0.0.1');
  let answer = '';
  socket.on('data', (d) => (answer += d));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(
    `GET /ws HTTP/1.1\r\nhost: demo--${copyOriginKey(sessionId)}.rooms.localhost\r\nupgrade: websocket\r\nconnection: Upgrade\r\n` +
      `sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\ncookie: ${copyCookie}=${token}\r\n\r\n`,
  );
  return { upgraded: () => answer.startsWith('HTTP/1.1 101'), closed };
}

/** A route sync of a runner of its own (its copies are only the test's). */
function newSync() {
  const runnerId = `dp-${randomUUID().slice(0, 8)}`;
  const ctx = { sql, settings: { runnerId }, log: createLogger({ name: 'route-sync-test', level: 'silent' }) } as unknown as RunnerContext;
  return { runnerId, sync: createRouteSync(ctx, dataplane, async () => {}) };
}

describe('the runner keeps its data plane in step', () => {
  it('routes a running copy while its session stands, and ends its WebSocket when the project is taken down', async () => {
    const { runnerId, sync } = newSync();
    const { projectId, sessionId, copyId } = await runningCopy(runnerId);
    await sync.start();
    expect(await routeOf(sessionId)).toBe(`127.0.0.1:${copyPort}|${copyId}`);

    const ws = openSocket(sessionId, copyId);
    await waitFor('the upgrade', async () => ws.upgraded());
    await sql`update projects set taken_down_at = now() where id = ${projectId}`;
    await sync.sync();
    await ws.closed;
    expect(await routeOf(sessionId)).toBeUndefined();
  });

  it('tells a caller when the route of a copy just made running is in place, whatever sync was under way', async () => {
    const { runnerId, sync } = newSync();
    // A sync under way that began before the copy ran: the caller waits for the one after it.
    const before = sync.sync();
    const { sessionId, copyId } = await runningCopy(runnerId);
    await sync.routed(sessionId, copyId);
    expect(await routeOf(sessionId)).toBe(`127.0.0.1:${copyPort}|${copyId}`);
    await before;
  });

  it('drops the route of a copy that ends', async () => {
    const { runnerId, sync } = newSync();
    const { sessionId, copyId } = await runningCopy(runnerId);
    await sync.sync();
    expect(await routeOf(sessionId)).toBe(`127.0.0.1:${copyPort}|${copyId}`);
    await transition(sql, copyId, ['running'], 'ended', { set: { endReason: 'left' }, event: 'stop' });
    await sync.sync();
    expect(await routeOf(sessionId)).toBeUndefined();
  });
});

async function routeOf(sessionId: string): Promise<string | undefined> {
  return (await dataplaneRoutes(dataplane).list()).get(copyOriginKey(sessionId));
}
