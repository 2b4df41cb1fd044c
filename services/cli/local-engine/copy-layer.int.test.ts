import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import Docker from 'dockerode';
import { extract } from 'tar-stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testEnv } from '../../../test/support/services.js';
import { readBuildContext } from './build-context.js';
import { buildImage } from './build-image.js';
import { copyLayerEntries, writeLayer, type FolderHeaders } from './copy-layer.js';
import { splitDockerfile } from './dockerfile-tail.js';

// An in-process COPY layer (issue 48, item 1) equals the one podman makes for the same files: the
// same entries with the same types, modes, owners, sizes, contents and times. The folders above
// the copied files carry the time of the step in both (podman writes the moment it copied), so
// for them only "a time of this build, not the context's" is compared. The owners and modes of
// those folders come, as in a deploy, from the earlier build's layer for the same COPY.

const docker = new Docker({ socketPath: testEnv().DOCKER_HOST.replace(/^unix:\/\//, '') });
const tags = ['a', 'b', 'c', 'd'].map((name) => `localhost/copy-layer-test:${name}${Date.now()}`);
const DOCKERFILE =
  'FROM localhost/demo-node:24\nWORKDIR /app\nCOPY server.js .\nCOPY sub ./lib/\nCOPY sub/a.txt /opt/tool/a\nCMD ["node", "server.js"]\n';
let dir: string;
let work: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'copy-layer-'));
  work = await mkdtemp(join(tmpdir(), 'copy-layer-work-'));
  await writeFile(join(dir, 'Dockerfile'), DOCKERFILE);
  await writeFile(join(dir, 'server.js'), 'console.log("one");\n');
  await mkdir(join(dir, 'sub', 'inner'), { recursive: true });
  await writeFile(join(dir, 'sub', 'a.txt'), 'a\n');
  await chmod(join(dir, 'sub', 'a.txt'), 0o755);
  await writeFile(join(dir, 'sub', 'inner', 'b.txt'), 'b\n');
  await chmod(join(dir, 'sub', 'inner', 'b.txt'), 0o640);
  await chmod(join(dir, 'sub', 'inner'), 0o750);
}, 60_000);
afterAll(async () => {
  for (const tag of tags)
    await docker
      .getImage(tag)
      .remove()
      .catch(() => {});
  await rm(dir, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

interface Seen {
  type: string;
  mode: number;
  uid: number;
  gid: number;
  size: number;
  mtime: number;
  sha: string;
}

/** A layer tar's entries by name (folders without their trailing `/`). */
async function entriesOf(tar: Readable): Promise<Map<string, Seen>> {
  const seen = new Map<string, Seen>();
  const reader = extract();
  const feeding = new Promise<void>((resolve, reject) =>
    tar
      .pipe(reader)
      .on('error', reject)
      .on('finish', () => resolve()),
  );
  for await (const entry of reader) {
    const hash = createHash('sha256');
    for await (const chunk of entry) hash.update(chunk as Buffer);
    const h = entry.header;
    seen.set(h.name.replace(/\/$/, ''), {
      type: h.type ?? '',
      mode: (h.mode ?? 0) & 0o7777,
      uid: h.uid ?? -1,
      gid: h.gid ?? -1,
      size: h.size ?? 0,
      mtime: h.mtime?.getTime() ?? -1,
      sha: hash.digest('hex'),
    });
  }
  await feeding;
  return seen;
}

/** The engine's build of the folder: its last `n` layers' entries, in order. */
async function engineLayers(tag: string, n: number, folder = dir): Promise<Map<string, Seen>[]> {
  await buildImage(docker, await readBuildContext(folder), tag, () => {});
  const layers = (await docker.getImage(tag).inspect()).RootFS!.Layers!.slice(-n).map((id) => `${id.slice(7)}.tar`);
  const archive = (await docker.getImage(tag).get()) as Readable;
  const found = new Map<string, Map<string, Seen>>();
  const reader = extract();
  const feeding = new Promise<void>((resolve, reject) =>
    archive
      .pipe(reader)
      .on('error', reject)
      .on('finish', () => resolve()),
  );
  for await (const entry of reader) {
    if (layers.includes(entry.header.name)) found.set(entry.header.name, await entriesOf(entry as unknown as Readable));
    else entry.resume();
  }
  await feeding;
  return layers.map((name) => found.get(name)!);
}

function foldersOf(layer: Map<string, Seen>): FolderHeaders {
  const folders: FolderHeaders = new Map();
  for (const [name, seen] of layer)
    if (seen.type === 'directory') folders.set(`/${name}`, { uid: seen.uid, gid: seen.gid, mode: seen.mode });
  return folders;
}

it('lays each COPY as podman does: the same entries, modes, owners, contents and times', async () => {
  const started = Math.floor(Date.now() / 1000) * 1000;
  const live = await engineLayers(tags[0], 3);
  // A changed file, a new one in a copied folder, and a changed mode: the redeploy's case.
  await writeFile(join(dir, 'server.js'), 'console.log("two");\n');
  await writeFile(join(dir, 'sub', 'inner', 'c.txt'), 'c\n');
  await chmod(join(dir, 'sub', 'inner', 'b.txt'), 0o600);
  const engine = await engineLayers(tags[1], 3);

  const context = await readBuildContext(dir);
  const split = splitDockerfile(DOCKERFILE);
  const copies = split.tail.flatMap((step) => (step.kind === 'copy' ? [step.copy] : []));
  expect(copies).toHaveLength(3);
  for (const [i, copy] of copies.entries()) {
    const entries = copyLayerEntries(context, copy, '/app', foldersOf(live[i]), new Date());
    const file = join(work, `layer-${i}.tar`);
    const { digest, size } = await writeLayer(entries, file);
    expect(digest).toBe(
      `sha256:${createHash('sha256')
        .update(await readFile(file))
        .digest('hex')}`,
    );
    expect(size).toBe((await readFile(file)).length);
    const mine = await entriesOf(createReadStream(file));
    const theirs = engine[i];
    expect([...mine.keys()].sort()).toEqual([...theirs.keys()].sort());
    for (const [name, seen] of theirs) {
      const laid = mine.get(name)!;
      if (seen.mtime === 0) expect(laid, name).toEqual(seen);
      else {
        // A folder the step wrote into: stamped with the step's time by both.
        expect({ ...laid, mtime: 0 }, name).toEqual({ ...seen, mtime: 0 });
        expect(seen.mtime).toBeGreaterThanOrEqual(started);
        expect(laid.mtime).toBeGreaterThanOrEqual(started);
      }
    }
  }
  expect(engine[0].get('app/server.js')?.mtime).toBe(0);
  expect(engine[1].get('app/lib/inner/c.txt')).toBeDefined();
}, 180_000);

it('leaves out of `COPY . dest` what .dockerignore excludes, the Dockerfile and .dockerignore included, as podman does', async () => {
  const folder = join(work, 'whole');
  await mkdir(join(folder, 'src'), { recursive: true });
  const dockerfile = 'FROM localhost/demo-node:24\nWORKDIR /app\nCOPY . /srv/site/\nCMD ["node", "server.js"]\n';
  await writeFile(join(folder, 'Dockerfile'), dockerfile);
  await writeFile(join(folder, '.dockerignore'), 'Dockerfile\n.dockerignore\n*.log\n');
  await writeFile(join(folder, 'index.html'), '<h1>hi</h1>\n');
  await writeFile(join(folder, 'src', 'app.js'), 'x\n');
  await writeFile(join(folder, 'src', 'debug.log'), 'never copied\n');
  const [theirs] = await engineLayers(tags[2], 1, folder);
  const [copy] = splitDockerfile(dockerfile).tail.flatMap((step) => (step.kind === 'copy' ? [step.copy] : []));
  const below: FolderHeaders = new Map(
    [...theirs].filter(([, seen]) => seen.type === 'directory').map(([name, seen]) => [`/${name}`, seen]),
  );
  const { digest } = await writeLayer(
    copyLayerEntries(await readBuildContext(folder), copy, '/app', below, new Date()),
    join(work, 'whole.tar'),
  );
  expect(digest).toMatch(/^sha256:/);
  const mine = await entriesOf(createReadStream(join(work, 'whole.tar')));
  expect([...mine.keys()].sort()).toEqual([...theirs.keys()].sort());
  expect(theirs.has('srv/site/Dockerfile')).toBe(false);
  expect(theirs.has('srv/site/src/app.js')).toBe(true);
}, 120_000);

it('lays `COPY package*.json ./` (a name with * or ?) as podman does: the files it matches, and no other', async () => {
  const folder = join(work, 'glob');
  await mkdir(join(folder, 'lib'), { recursive: true });
  const dockerfile = 'FROM localhost/demo-node:24\nWORKDIR /app\nCOPY package*.json ./\nCOPY lib/?.js ./lib/\nCMD ["node", "server.js"]\n';
  await writeFile(join(folder, 'Dockerfile'), dockerfile);
  await writeFile(join(folder, 'package.json'), '{"name":"glob"}\n');
  await writeFile(join(folder, 'package-lock.json'), '{"lockfileVersion":3}\n');
  await chmod(join(folder, 'package-lock.json'), 0o600);
  await writeFile(join(folder, 'packages.txt'), 'not matched\n');
  await writeFile(join(folder, 'lib', 'a.js'), 'a\n');
  await writeFile(join(folder, 'lib', 'ab.js'), 'not matched\n');
  const theirs = await engineLayers(tags[3], 2, folder);
  const copies = splitDockerfile(dockerfile).tail.flatMap((step) => (step.kind === 'copy' ? [step.copy] : []));
  const context = await readBuildContext(folder);
  for (const [i, copy] of copies.entries()) {
    const below: FolderHeaders = new Map(
      [...theirs[i]].filter(([, seen]) => seen.type === 'directory').map(([name, seen]) => [`/${name}`, seen]),
    );
    const file = join(work, `glob-${i}.tar`);
    await writeLayer(copyLayerEntries(context, copy, '/app', below, new Date()), file);
    const mine = await entriesOf(createReadStream(file));
    expect([...mine.keys()].sort()).toEqual([...theirs[i].keys()].sort());
    for (const [name, seen] of theirs[i]) if (seen.type === 'file') expect(mine.get(name), name).toEqual(seen);
  }
  expect([...theirs[0].keys()].sort()).toEqual(['app', 'app/package-lock.json', 'app/package.json']);
  expect(theirs[1].has('app/lib/a.js') && !theirs[1].has('app/lib/ab.js')).toBe(true);
  // A name that matches nothing is the engine's to refuse.
  expect(() => copyLayerEntries(context, { line: 3, sources: ['*.md'], dest: './' }, '/app', new Map(), new Date())).toThrow(
    /matches no file of the build context/,
  );
}, 120_000);
