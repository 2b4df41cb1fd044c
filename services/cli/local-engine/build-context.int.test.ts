import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import Docker from 'dockerode';
import { extract } from 'tar-stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testEnv } from '../../../test/support/services.js';
import { contextTar, readBuildContext } from './build-context.js';
import { buildImage } from './build-image.js';
import { nodeDockerfile } from '../project/node-dockerfile.js';

// .dockerignore honoured at any depth (issue 48, item 2): what it excludes is never in the tar the
// engine is sent, so never in the image either, built here by the real engine (podman) with
// `COPY . .` from the offline base.

const docker = new Docker({ socketPath: testEnv().DOCKER_HOST.replace(/^unix:\/\//, '') });
const tag = `localhost/build-context-test:${Date.now()}`;
const nodeTag = `localhost/build-context-node:${Date.now()}`;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'build-context-'));
  await writeFile(join(dir, 'Dockerfile'), 'FROM localhost/demo-node:24\nWORKDIR /app\nCOPY . .\nCMD ["node", "server.js"]\n');
  await writeFile(join(dir, '.dockerignore'), 'node_modules\n**/*.log\nsrc/private\n.env\n');
  await writeFile(join(dir, 'server.js'), 'console.log("hi");\n');
  await writeFile(join(dir, '.env'), 'TOKEN=never-sent\n');
  await mkdir(join(dir, 'node_modules', 'left'), { recursive: true });
  await writeFile(join(dir, 'node_modules', 'left', 'index.js'), 'x'.repeat(50_000));
  await mkdir(join(dir, 'src', 'private'), { recursive: true });
  await writeFile(join(dir, 'src', 'private', 'key.txt'), 'private\n');
  await writeFile(join(dir, 'src', 'deep.log'), 'a log\n');
  await writeFile(join(dir, 'src', 'run.sh'), '#!/bin/sh\n');
  await chmod(join(dir, 'src', 'run.sh'), 0o755);
}, 60_000);
afterAll(async () => {
  for (const image of [tag, nodeTag])
    await docker
      .getImage(image)
      .remove()
      .catch(() => {});
  await rm(dir, { recursive: true, force: true });
});

/** The names and modes a tar holds. */
async function tarEntries(tar: Readable): Promise<Map<string, number>> {
  const entries = new Map<string, number>();
  const reader = extract();
  reader.on('entry', (header, stream, next) => {
    entries.set(header.name.replace(/\/$/, ''), header.mode ?? 0);
    stream.on('end', next);
    stream.resume();
  });
  await new Promise<void>((resolve, reject) => {
    reader.on('finish', resolve);
    reader.on('error', reject);
    tar.pipe(reader);
  });
  return entries;
}

it('sends the engine only what .dockerignore leaves, nested exclusions included, with the files’ modes', async () => {
  const context = await readBuildContext(dir);
  const sent = await tarEntries(contextTar(context));
  expect([...sent.keys()].sort()).toEqual(['.dockerignore', 'Dockerfile', 'server.js', 'src', 'src/run.sh']);
  expect(sent.get('src/run.sh')! & 0o777).toBe(0o755);
  // node_modules was not walked, only weighed, for the line that says what was kept back.
  expect(context.excludedBytes).toBeGreaterThanOrEqual(50_000);

  await buildImage(docker, context, tag, () => {});
  const container = await docker.createContainer({ Image: tag });
  try {
    const inImage = await tarEntries((await container.getArchive({ path: '/app' })) as unknown as Readable);
    const names = [...inImage.keys()].map((name) => name.replace(/^app\/?/, '')).filter(Boolean);
    expect(names.sort()).toEqual(['.dockerignore', 'Dockerfile', 'server.js', 'src', 'src/run.sh']);
  } finally {
    await container.remove({ force: true });
  }
}, 300_000);

it("builds pitch init's Node Dockerfile, and a change to the code makes one new layer, the dependencies' unchanged", async () => {
  const app = await mkdtemp(join(tmpdir(), 'build-context-node-'));
  try {
    await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'shop', main: 'server.js' }));
    await writeFile(join(app, 'server.js'), 'require("dep");\n');
    await mkdir(join(app, 'node_modules', 'dep'), { recursive: true });
    await writeFile(join(app, 'node_modules', 'dep', 'index.js'), 'module.exports = 1;\n');
    await writeFile(join(app, 'Dockerfile'), await nodeDockerfile(app));
    await buildImage(docker, await readBuildContext(app), nodeTag, () => {});
    const before = (await docker.getImage(nodeTag).inspect()).RootFS.Layers!;

    await writeFile(join(app, 'server.js'), 'require("dep");\n// one line changed\n');
    await buildImage(docker, await readBuildContext(app), nodeTag, () => {});
    const after = (await docker.getImage(nodeTag).inspect()).RootFS.Layers!;
    expect(after).toHaveLength(before.length);
    expect(after.slice(0, -1)).toEqual(before.slice(0, -1));
    expect(after.at(-1)).not.toBe(before.at(-1));
  } finally {
    await rm(app, { recursive: true, force: true });
  }
}, 300_000);
