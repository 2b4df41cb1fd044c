import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testEnv } from '../../../test/support/services.js';
import { startLocalCopy, type LocalCopy } from './local-copy.js';
import { rehearsalApp } from './rehearsal-app.js';

// The rehearsal copy's /app on podman is the image's own /app under an overlay the engine keeps
// (rehearsal-app.ts), as the runner lays a room's copy: nothing copied at start, the image's files
// read, new ones written by the copy's user, each copy fresh, nothing left once it is removed. An
// image whose /app is a symbolic link gets the volume filled from the image instead. Real podman.

const run = promisify(execFile);
const env = { ...process.env, CONTAINERS_CONF: testEnv().CONTAINERS_CONF };
const docker = new Docker({ socketPath: testEnv().DOCKER_HOST.replace(/^unix:\/\//, '') });
const plain = `localhost/rehearsal-app-test:plain-${process.pid}`;
const linked = `localhost/rehearsal-app-test:linked-${process.pid}`;

// `/` answers the image's seed file; `/write` makes a new file in /app and answers what /app holds.
const SERVER = `const http = require('node:http'), fs = require('node:fs');
http.createServer((req, res) => {
  try {
    if (req.url === '/write') fs.writeFileSync('/app/written.txt', 'mine');
    res.end(req.url === '/write' ? fs.readdirSync('/app').sort().join(',') : fs.readFileSync('/app/seed.txt', 'utf8'));
  } catch (err) { res.statusCode = 500; res.end(String(err.code)); }
}).listen(Number(process.env.PORT), process.env.HOST);`;

async function build(tag: string, dockerfile: string): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'rehearsal-app-'));
  try {
    await writeFile(join(dir, 'Dockerfile'), dockerfile);
    await writeFile(join(dir, 'seed.txt'), 'from the image');
    await run('podman', ['build', '-q', '-t', tag, dir], { env });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  await build(plain, 'FROM localhost/demo-node:24\nWORKDIR /app\nCOPY seed.txt .\n');
  await build(
    linked,
    'FROM localhost/demo-node:24\nRUN rm -rf /app && mkdir -p /outside && ln -s /outside /app\nCOPY seed.txt /outside/\n',
  );
}, 120_000);

afterAll(async () => {
  for (const tag of [plain, linked]) await run('podman', ['rmi', '-f', tag], { env }).catch(() => {});
});

/** The copy's answer at `path`, asked until its server listens. */
async function ask(copy: LocalCopy, path: string): Promise<string> {
  for (let tries = 0; tries < 100; tries++) {
    const answer = await fetch(copy.baseUrl + path).then(
      (res) => res.text(),
      () => null,
    );
    if (answer !== null) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the copy never answered ${path}`);
}

/** The containers made from `image`, whatever their state: the copy and the holder of its /app. */
const containersOf = (image: string) => docker.listContainers({ all: true, filters: { ancestor: [image] } });

it("lays the image's own /app under an overlay: its files read, new ones written, each copy fresh, nothing left", async () => {
  const first = await startLocalCopy(docker, plain, ['node', '-e', SERVER], {});
  try {
    const [copy] = (await containersOf(plain)).filter((c) => c.Labels['pitch.rehearsal'] && c.State === 'running');
    const inspected = await docker.getContainer(copy.Id).inspect();
    // podman names the overlay it laid: the image's /app the lower, an upper of the copy's own.
    expect(inspected.HostConfig.Binds).toEqual([expect.stringMatching(/:\/app:lowerdir=\/.+\/app,upperdir=\/.+,workdir=/)]);
    expect(inspected.HostConfig.ReadonlyRootfs).toBe(true);
    expect(await ask(first, '/')).toBe('from the image');
    // The copy's user makes a file in /app, as the runner's overlay lets it.
    expect(await ask(first, '/write')).toBe('seed.txt,written.txt');
  } finally {
    await first.remove();
  }
  expect(await containersOf(plain)).toEqual([]);
  // The next copy starts from the image again: the first one's file went with it.
  const second = await startLocalCopy(docker, plain, ['node', '-e', SERVER], {});
  try {
    expect(await ask(second, '/write')).toBe('seed.txt,written.txt');
    const again = await fetch(`${second.baseUrl}/`).then((res) => res.text());
    expect(again).toBe('from the image');
  } finally {
    await second.remove();
  }
  expect(await containersOf(plain)).toEqual([]);
});

it('gives an image whose /app is a symbolic link the volume filled from the image, never an overlay on the link', async () => {
  const copy = await startLocalCopy(docker, linked, ['node', '-e', SERVER], {});
  try {
    const [container] = (await containersOf(linked)).filter((c) => c.State === 'running');
    const inspected = await docker.getContainer(container.Id).inspect();
    expect((inspected.HostConfig.Binds ?? []).filter((bind) => bind.includes('lowerdir='))).toEqual([]);
    expect(inspected.Mounts.map((mount) => [mount.Type, mount.Destination])).toContainEqual(['volume', '/app']);
  } finally {
    await copy.remove();
  }
  // No holder left behind by the overlay that was not laid.
  expect(await containersOf(linked)).toEqual([]);
});

it("judges /app by this machine's look when it sees the mount, and by the engine's stat when it does not", async () => {
  const seesNothing = async () => false;
  for (const lookHere of [undefined, seesNothing]) {
    const overlay = await rehearsalApp(docker, plain, lookHere);
    try {
      expect(overlay?.lower, lookHere ? 'the engine decides' : 'seen here').toMatch(/^\/.+\/app$/);
    } finally {
      await overlay?.release();
    }
    // A link is never taken for a folder, whoever looks: seen here as a link, the engine is asked.
    expect(await rehearsalApp(docker, linked, lookHere)).toBeNull();
  }
  expect(await containersOf(plain)).toEqual([]);
  expect(await containersOf(linked)).toEqual([]);
});
