import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerUsage } from '../../services/data/container-usage.sql.js';
import { exitsOfProject } from '../../services/data/copy-exits.sql.js';
import { copyNotice } from '../../services/room/viewer-copies/copy-states.js';
import { lowerName } from '@demo-rooms/contract/runner';
import { reconcile } from '../loops/reconcile.js';
import { demoBundle } from '../../test/support/runner/demo-bundle.js';
import { seedContainerBuild, seedWorkspace, type Seeded } from '../../test/support/runner/seed.js';
import { eventually, startTestRunner, type TestRunner } from '../../test/support/runner/test-runner.js';

// Issue 13: real demos write files (json-server rewrote db.json and died on a read-only root),
// and a copy that dies after it was healthy is seen: by its viewer, and by its builder.

// A json-server-like store: every POST rewrites /app/db.json through a temporary file and a
// rename, as lowdb does; GET /db reads it; /fill writes until the disk says no.
const store = `
const http = require('node:http'), fs = require('node:fs');
const db = '/app/db.json';
const read = () => { try { return JSON.parse(fs.readFileSync(db, 'utf8')); } catch { return null; } };
http.createServer((req, res) => {
  const send = (status, body) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(body)); };
  if (req.url === '/healthz') return send(200, { ok: true });
  if (req.url === '/db') return send(200, { items: read()?.items ?? null });
  if (req.url === '/fill') {
    const chunk = Buffer.alloc(1 << 20, 1); let mb = 0;
    try { for (;;) { fs.appendFileSync('/app/fill.bin', chunk); mb++; } }
    catch (e) { fs.rmSync('/app/fill.bin', { force: true }); return send(200, { code: e.code, mb }); }
  }
  if (req.url === '/etc') { try { fs.writeFileSync('/etc/x', 'x'); return send(200, { code: null }); } catch (e) { return send(200, { code: e.code }); } }
  if (req.method === 'POST') {
    const items = [...(read()?.items ?? []), Date.now()];
    fs.writeFileSync(db + '.tmp', JSON.stringify({ items }));
    fs.renameSync(db + '.tmp', db);
    return send(201, { count: items.length });
  }
  send(200, { path: req.url });
}).listen(process.env.PORT, process.env.HOST);`;

// Answers its health path, then dies on its first real request, saying why (and a secret).
const crasher = `
const http = require('node:http');
http.createServer((req, res) => {
  if (req.url === '/healthz') { res.writeHead(200); return res.end('ok'); }
  res.writeHead(201); res.end('{}', () => {
    console.log('db: writing ' + req.url + ' with key ' + process.env.SHOP_API_KEY);
    console.error('Error: EROFS: read-only file system, open /app/db.json');
    process.exit(3);
  });
}).listen(process.env.PORT, process.env.HOST);`;

// Replaces a file the image holds (server.js, root's, read-only in place) by writing a new one and
// renaming it over, as editors and lowdb do; reads it back; lists /app.
const replacer = `
const http = require('node:http'), fs = require('node:fs');
http.createServer((req, res) => {
  const send = (body) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify(body)); };
  if (req.url === '/replace') { fs.writeFileSync('/app/server.js.new', 'replaced'); fs.renameSync('/app/server.js.new', '/app/server.js'); }
  if (req.url === '/inplace') { try { fs.appendFileSync('/app/server.js', 'x'); return send({ code: null }); } catch (e) { return send({ code: e.code }); } }
  send({ server: fs.readFileSync('/app/server.js', 'utf8').slice(0, 20), files: fs.readdirSync('/app').sort() });
}).listen(process.env.PORT, process.env.HOST);`;

const WRITABLE_MB = 8;
let runner: TestRunner;
let bundle: Buffer;
beforeAll(async () => {
  bundle = await demoBundle();
  runner = await startTestRunner({ RUNNER_COPY_WRITABLE_MB: String(WRITABLE_MB) });
});
afterAll(async () => {
  await runner?.close();
});

const enterBody = (b: Seeded) => ({ workspaceId: b.workspaceId, projectId: b.projectId, buildId: b.buildId });

async function viewerOf(b: Seeded) {
  const session = randomUUID();
  await runner.client.enter(session, enterBody(b));
  const view = await runner.until(session, ['running', 'failed']);
  expect(view.state).toBe('running');
  return { session, copyId: view.copyId! };
}

const json = (body: string | undefined) => JSON.parse(body ?? 'null');

/** Bytes in a folder on the host, all the way down. */
async function sizeOf(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await sizeOf(path);
    else if (entry.isFile()) total += (await stat(path)).size;
  }
  return total;
}

describe('a copy writes files', () => {
  it('serves twenty writes to /app, each copy sees only its own files, and the cap gives ENOSPC with the host untouched', async () => {
    const b = await seedContainerBuild(runner.sql, runner.storage, bundle, {
      workspaceId: await seedWorkspace(runner.sql),
      manifest: { run: { start: ['node', '-e', store] } },
    });
    const first = await viewerOf(b);
    const writes = await runner.client.calls(
      first.session,
      Array.from({ length: 20 }, () => ({ method: 'POST', path: '/items' })),
    );
    expect(writes.outcomes.map((o) => o.status)).toEqual(Array(20).fill(201));
    expect(json(writes.outcomes[19].body)).toEqual({ count: 20 });
    const [read] = (await runner.client.calls(first.session, [{ method: 'GET', path: '/db' }])).outcomes;
    expect(json(read.body).items).toHaveLength(20);

    // Another viewer's copy starts from the image, not from the first copy's files.
    const second = await viewerOf(b);
    const [other] = (await runner.client.calls(second.session, [{ method: 'GET', path: '/db' }])).outcomes;
    expect(json(other.body)).toEqual({ items: null });

    // Past the cap: ENOSPC, after at most the cap; the root stays read-only.
    const [fill] = (await runner.client.calls(first.session, [{ method: 'GET', path: '/fill' }])).outcomes;
    expect(json(fill.body).code).toBe('ENOSPC');
    expect(json(fill.body).mb).toBeLessThanOrEqual(WRITABLE_MB);
    const [etc] = (await runner.client.calls(first.session, [{ method: 'GET', path: '/etc' }])).outcomes;
    expect(json(etc.body).code).toBe('EROFS');
    // None of it reached the host's disk: the container's own layer there holds nothing written.
    const row = (await runner.sql<{ containerId: string }[]>`select container_id from runner_copies where id = ${first.copyId}`)[0];
    const info = await new Docker({ socketPath: new URL(runner.env.DOCKER_HOST).pathname }).getContainer(row.containerId).inspect();
    const upper = (info.GraphDriver?.Data as Record<string, string> | undefined)?.UpperDir;
    expect(upper).toBeTruthy();
    expect(await sizeOf(upper!)).toBeLessThan(64 * 1024);
    // The copy is still fine after all that.
    const [after] = (await runner.client.calls(first.session, [{ method: 'POST', path: '/items' }])).outcomes;
    expect(json(after.body)).toEqual({ count: 21 });
  });
});

/** Mount points on this host (the runner's namespace is the test's). */
const mounts = () =>
  readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' ')[4]);

describe("a copy's /app copies up on write (podman)", () => {
  it("overlays the image's /app with the copy's own bounded tmpfs, leaves the image as it was, and takes the tmpfs away with the copy", async () => {
    const b = await seedContainerBuild(runner.sql, runner.storage, bundle, {
      workspaceId: await seedWorkspace(runner.sql),
      manifest: { run: { start: ['node', '-e', replacer] } },
    });
    const docker = new Docker({ socketPath: new URL(runner.env.DOCKER_HOST).pathname });
    const first = await viewerOf(b);
    const place = join(runner.settings.writableDir, runner.runnerId, first.copyId);
    const [row] = await runner.sql<{ containerId: string }[]>`select container_id from runner_copies where id = ${first.copyId}`;
    const info = await docker.getContainer(row.containerId).inspect();
    // The image's files are not copied: /app is an overlay whose upper is the copy's own tmpfs.
    expect(info.HostConfig.Tmpfs?.['/app']).toBeUndefined();
    expect(info.HostConfig.Binds?.join(' ')).toContain(`upperdir=${place}/upper`);
    expect(mounts()).toContain(place);
    const image = info.Image;
    const layersBefore = (await docker.getImage(image).inspect()).RootFS.Layers;

    const read = async (session: string, path = '/') =>
      json((await runner.client.calls(session, [{ method: 'GET', path }])).outcomes[0].body);
    const original = await read(first.session);
    expect(original).toEqual({ server: expect.stringMatching(/^\/\/ The runner/), files: ['server.js'] });
    // A file of the image: read-only in place, replaceable by rename, and replaced for this copy only.
    expect((await read(first.session, '/inplace')).code).toBe('EACCES');
    expect(await read(first.session, '/replace')).toEqual({ server: 'replaced', files: ['server.js'] });
    const second = await viewerOf(b);
    expect(await read(second.session)).toEqual(original);

    // The image is as it was: same layers, and the holder of its files wrote nothing.
    expect((await docker.getImage(image).inspect()).RootFS.Layers).toEqual(layersBefore);
    const holder = await docker.getContainer(lowerName(image)).inspect();
    expect(await sizeOf((holder.GraphDriver?.Data as Record<string, string>).UpperDir)).toBe(0);

    // The copy goes: its tmpfs is unmounted and its folder removed; the other copy's stays.
    await runner.client.leave(first.session);
    await eventually(async () => !mounts().includes(place) && !existsSync(place));
    expect(mounts()).toContain(join(runner.settings.writableDir, runner.runnerId, second.copyId));
    await runner.client.leave(second.session);
    await eventually(async () => !existsSync(join(runner.settings.writableDir, runner.runnerId, second.copyId)));
  });

  it('sweeps a tmpfs a crashed runner left for a copy that is no longer live', async () => {
    const stale = join(runner.settings.writableDir, runner.runnerId, randomUUID());
    await mkdir(stale, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', stale]);
    expect(mounts()).toContain(stale);
    await reconcile(runner.service.ctx, { initial: true });
    expect(mounts()).not.toContain(stale);
    expect(existsSync(stale)).toBe(false);
  });
});

describe('a copy that crashes after it was healthy', () => {
  it('is recorded with its exit code and masked output, counted, and shown as "the demo stopped"', async () => {
    const workspaceId = await seedWorkspace(runner.sql);
    const secret = 'sk_live_FAKEfakeFAKEfake1234';
    const b = await seedContainerBuild(runner.sql, runner.storage, bundle, {
      workspaceId,
      manifest: { run: { start: ['node', '-e', crasher], env: { SHOP_API_KEY: secret, MOCK_MODE: 'demo' } } },
    });
    const viewer = await viewerOf(b);
    const [call] = (await runner.client.calls(viewer.session, [{ method: 'POST', path: '/api/items' }])).outcomes;
    expect(call.status).toBe(201);

    const view = await runner.until(viewer.session, ['gone', 'failed']);
    expect(view).toMatchObject({ state: 'gone', detail: 'exited', copyId: viewer.copyId });
    const notice = copyNotice(view);
    expect(notice).toMatchObject({ title: 'The demo stopped', waiting: false });
    expect(notice.message).not.toMatch(/while you were away/);

    const [exit] = await eventually(async () => {
      const exits = await exitsOfProject(runner.sql, workspaceId, b.projectId);
      return exits.length ? exits : null;
    });
    expect(exit).toMatchObject({ copyId: viewer.copyId, buildId: b.buildId, healthy: true, exitCode: 3, oom: false });
    expect(exit.output).toContain('Error: EROFS: read-only file system, open /app/db.json');
    expect(exit.output).toContain('db: writing /api/items with key ***');
    expect(exit.output).not.toContain(secret);
    // Another workspace sees none of it.
    expect(await exitsOfProject(runner.sql, await seedWorkspace(runner.sql), b.projectId)).toEqual([]);

    expect(await containerUsage(runner.sql, workspaceId)).toMatchObject({ runs: 1, crashes: 1, failedStarts: 0 });
    // Entering again starts a fresh copy: the fresh start the room offers.
    const again = await runner.client.enter(viewer.session, enterBody(b));
    expect(again.copyId).not.toBe(viewer.copyId);
  });

  it('records a copy that exits before it is healthy as a failed start, with its output', async () => {
    const workspaceId = await seedWorkspace(runner.sql);
    const b = await seedContainerBuild(runner.sql, runner.storage, bundle, {
      workspaceId,
      manifest: { run: { start: ['node', '-e', 'console.error("missing SHOP_URL"); process.exit(2)'] } },
    });
    const session = randomUUID();
    await runner.client.enter(session, enterBody(b));
    expect(await runner.until(session, ['failed', 'running'])).toMatchObject({ state: 'failed', detail: 'exited' });
    const [exit] = await exitsOfProject(runner.sql, workspaceId, b.projectId);
    expect(exit).toMatchObject({ healthy: false, exitCode: 2, output: 'missing SHOP_URL' });
    expect(await containerUsage(runner.sql, workspaceId)).toMatchObject({ failedStarts: 1, crashes: 0 });
  });
});
