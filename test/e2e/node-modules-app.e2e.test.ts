import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { imageTagOf } from '../../runner/images/image-store.js';
import { eventually, type TestRunner } from '../support/runner/test-runner.js';
import { lowerName } from '@demo-rooms/contract/runner';
import { configHome, pitch } from '../cli/support/pitch.js';
import type { Platform } from '../support/platform.js';
import { uniqueSlug } from '../support/refusal.js';
import { platformWithRunner } from '../support/suites.js';

// Issue 29, item 1: a Node-RED-sized app (a Node server whose /app holds over 120 MB of
// node_modules and that writes to a user folder under /app) deploys with the docs' own Dockerfile
// and runs one copy per viewer within the copy's memory limit. Before, each copy's /app was a
// 64 MB tmpfs filled from the image at start: "tmpcopyup … no space left on device".

let platform: Platform;
let runner: TestRunner;
platformWithRunner((p, r) => ([platform, runner] = [p, r]));

const MB = 1024 * 1024;
const PACKAGES = 32;
const FILES = 4; // of 1 MiB each: 128 MiB of node_modules

/** The Dockerfile docs/cli.md shows, as a builder would copy it. */
async function docsDockerfile(): Promise<string> {
  const doc = await readFile(new URL('../../docs/cli.md', import.meta.url), 'utf8');
  const found = /cat > Dockerfile <<'DOCKER'\n([\s\S]*?)\nDOCKER\n/.exec(doc);
  if (!found) throw new Error('docs/cli.md shows no Dockerfile');
  return `${found[1]}\n`;
}

// Like Node-RED: loads its packages at start (reading every file of one), keeps its flows in a
// user folder under /app (made at start, as Node-RED makes ~/.node-red), serves its editor page.
const server = `
const http = require('node:http'), fs = require('node:fs');
const editor = require('editor-0');
const dir = '/app/data/user';
fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(dir + '/settings.js', 'module.exports = {}');
const flows = dir + '/flows.json';
const read = () => (fs.existsSync(flows) ? JSON.parse(fs.readFileSync(flows, 'utf8')) : []);
http.createServer((req, res) => {
  if (req.url === '/healthz') return res.end('ok');
  if (req.method === 'POST' && req.url === '/flows') {
    const all = [...read(), { id: all_id() }];
    fs.writeFileSync(flows + '.tmp', JSON.stringify(all));
    fs.renameSync(flows + '.tmp', flows);
    res.writeHead(201, { 'content-type': 'application/json' });
    return res.end(JSON.stringify(all));
  }
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end('<h1>' + editor.name + '</h1><p>' + read().length + ' flows</p>');
}).listen(Number(process.env.PORT), process.env.HOST);
function all_id() { return Math.random().toString(36).slice(2); }`;

/** The app's folder: server, package.json, pitch.json, the docs' Dockerfile, and 128 MiB of incompressible node_modules. */
async function nodeRedShapedApp(name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'node-red-shaped-'));
  for (let p = 0; p < PACKAGES; p++) {
    const pkg = join(dir, 'node_modules', `editor-${p}`);
    await mkdir(pkg, { recursive: true });
    await writeFile(join(pkg, 'package.json'), JSON.stringify({ name: `editor-${p}`, version: '1.0.0', main: 'index.js' }));
    const parts = Array.from({ length: FILES }, (_, f) => `part-${f}.bin`);
    await writeFile(
      join(pkg, 'index.js'),
      `const fs = require('node:fs');\nfor (const f of ${JSON.stringify(parts)}) fs.readFileSync(__dirname + '/' + f);\nmodule.exports = { name: 'Flow editor ${p}' };\n`,
    );
    for (const part of parts) await writeFile(join(pkg, part), randomBytes(MB));
  }
  await writeFile(join(dir, 'server.js'), server);
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'flows', version: '1.0.0', private: true }));
  await writeFile(join(dir, 'Dockerfile'), await docsDockerfile());
  await writeFile(
    join(dir, 'pitch.json'),
    JSON.stringify(
      {
        kind: 'container',
        name,
        health: '/healthz',
        apps: [{ id: 'editor', name: 'Editor', path: '/', device: 'laptop' }],
        story: [{ id: 'flow', title: 'A flow', say: 'One flow is added.', app: 'editor', path: '/', run: ['POST /flows'] }],
      },
      null,
      2,
    ),
  );
  return dir;
}

describe('a Node app with 128 MiB of node_modules', () => {
  it("deploys with the docs' Dockerfile and runs one copy per viewer, within the copy's memory, each writing its own user folder", async () => {
    const person = await platform.person({ plan: 'solo' });
    const slug = uniqueSlug('node-red');
    const folder = await nodeRedShapedApp('Flows demo');
    const result = await pitch(
      ['deploy', '--project', slug],
      { api: platform.baseUrl, token: person.token, configHome: await configHome() },
      folder,
    );
    await rm(folder, { recursive: true, force: true });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^rehearse +healthy in [\d.]+ s; 1 story steps?, 1 calls? passed$/m);

    const [project] = await platform.deps.sql<{ id: string; workspaceId: string; liveBuildId: string }[]>`
      select id, workspace_id, live_build_id from projects where slug = ${slug}`;
    expect(project.liveBuildId).toBeTruthy();
    const body = { workspaceId: project.workspaceId, projectId: project.id, buildId: project.liveBuildId };
    const docker = new Docker({ socketPath: new URL(runner.env.DOCKER_HOST).pathname });

    // Two viewers, two copies.
    const viewers = [randomUUID(), randomUUID()];
    const copies: string[] = [];
    for (const session of viewers) {
      await runner.client.enter(session, body);
      const view = await runner.until(session, ['running', 'failed'], 90_000);
      expect(view.state, view.detail ?? '').toBe('running');
      copies.push(view.copyId!);
    }
    expect(new Set(copies).size).toBe(2);

    const page = async (session: string) => (await runner.client.calls(session, [{ method: 'GET', path: '/' }])).outcomes[0];
    const add = async (session: string) => (await runner.client.calls(session, [{ method: 'POST', path: '/flows' }])).outcomes[0];
    expect(await page(viewers[0])).toMatchObject({ status: 200, body: '<h1>Flow editor 0</h1><p>0 flows</p>' });
    expect((await add(viewers[0])).status).toBe(201);
    expect((await add(viewers[0])).status).toBe(201);
    expect((await page(viewers[0])).body).toContain('<p>2 flows</p>');
    // The other viewer's copy has its own user folder.
    expect((await page(viewers[1])).body).toContain('<p>0 flows</p>');

    for (const copyId of copies) {
      const [row] = await runner.sql<{ containerId: string }[]>`select container_id from runner_copies where id = ${copyId}`;
      const container = docker.getContainer(row.containerId);
      const info = await container.inspect();
      expect(info.State).toMatchObject({ Running: true, OOMKilled: false });
      // Within its memory limit, though the image's /app is half of it: /app was not copied into RAM.
      const stats = await container.stats({ stream: false });
      expect(stats.memory_stats.usage).toBeGreaterThan(0);
      expect(stats.memory_stats.usage).toBeLessThan(runner.settings.copy.memoryMb * MB);
      // What the copy wrote is all its writable place holds: kilobytes, not the node_modules.
      const fs = await statfs(join(runner.settings.writableDir, runner.runnerId, copyId));
      expect((fs.blocks - fs.bfree) * fs.bsize).toBeLessThan(MB);
    }
    for (const session of viewers) await runner.client.leave(session);
    await eventually(async () => (await runner.containers()).length === 0, 60_000);
    for (const copyId of copies) expect(existsSync(join(runner.settings.writableDir, runner.runnerId, copyId))).toBe(false);

    // The image goes when no copy needs it, and the holder of its files (the copies' lower) with it.
    const image = (await runner.engine.imageId(imageTagOf(project.liveBuildId)))!;
    expect((await docker.getContainer(lowerName(image)).inspect()).State.Status).toBe('created');
    expect(await runner.engine.removeImage(imageTagOf(project.liveBuildId))).toBe(true);
    if (!(await runner.engine.imageId(image)))
      await expect(docker.getContainer(lowerName(image)).inspect()).rejects.toMatchObject({ statusCode: 404 });
  }, 600_000);
});
