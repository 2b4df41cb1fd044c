import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lowerName, type CopySpec } from '@demo-rooms/contract/runner';
import { loadConfig } from '../../../services/core/infra/config.js';
import { testEnv } from '../../../test/support/services.js';
import { demoBundle } from '../../../test/support/runner/demo-bundle.js';
import { TEST_COPY_PORT, testCopySpec } from '../../../test/support/runner/test-copy-spec.js';
import { runnerSettings } from '../../service/runner-context.js';
import type { StartHooks } from '../copy-engine.js';
import { DockerEngine } from '../docker-engine.js';
import { dockerFrom } from './docker-calls.js';

// A copy's /app is laid over the files of the image's holder container, shared by every runner of
// the engine. Another runner removes that holder when it removes the image (removeImage), and
// nothing orders its removal against our create: the copy is laid again on a fresh holder instead
// of failing (a CI run lost a copy to "no container with name lower-…" this way). The other runner
// here is a second client of the same podman, removing the holder at the two moments that matter.

const PORT = TEST_COPY_PORT;
const LIST_APP = `require('node:http').createServer((q, s) => s.end(JSON.stringify(require('node:fs').readdirSync('/app').sort())))
  .listen(Number(process.env.PORT), process.env.HOST);`;

const config = loadConfig({ ...(testEnv() as unknown as Record<string, string>), RUNNER_ID: `t-${randomUUID().slice(0, 8)}` });
const settings = runnerSettings(config);
const other = dockerFrom(config.DOCKER_HOST);
const buildId = randomUUID();
const tag = `localhost/build-${buildId}:latest`;
let image: string;

/** An engine whose holder is removed by the other runner just after `moment`, the first `times` times. */
function engineRacedAt(moment: 'holder made' | 'holder mounted', times = 1) {
  const docker = dockerFrom(config.DOCKER_HOST);
  const create = docker.createContainer.bind(docker);
  let races = 0;
  let lostFiles: string | null = null;
  docker.createContainer = (async (options: Docker.ContainerCreateOptions) => {
    const holder = options.name?.startsWith('lower-');
    // Mounted: the copy's create comes after the holder's mount, so removing it now is "between".
    if (races < times && moment === 'holder mounted' && !holder) {
      races++;
      const lost = other.getContainer(lowerName(image));
      lostFiles = ((await lost.inspect()).GraphDriver.Data as unknown as { MergedDir: string }).MergedDir;
      await lost.remove({ force: true });
    }
    const made = await create(options);
    if (races < times && moment === 'holder made' && holder) {
      races++;
      await made.remove({ force: true });
    }
    return made;
  }) as typeof docker.createContainer;
  return {
    engine: new DockerEngine(docker, { writableDir: settings.writableDir, subnets: settings.subnets }),
    raced: () => races > 0,
    lostFiles: () => lostFiles,
  };
}

const spec = (): CopySpec => testCopySpec({ buildId, runnerId: settings.runnerId, image }, { start: ['node', '-e', LIST_APP] });
const hooks: StartHooks = { signal: new AbortController().signal, made: async () => {}, running: async () => {}, phase: () => {} };

async function appListing(address: string): Promise<unknown> {
  for (let i = 0; i < 100; i++) {
    const listed = await fetch(`http://${address}:${PORT}/`).then(
      (r) => r.json(),
      () => null,
    );
    if (listed) return listed;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the copy at ${address} never answered`);
}

beforeAll(async () => {
  const bundle = await demoBundle();
  image = await new DockerEngine(dockerFrom(config.DOCKER_HOST), { writableDir: settings.writableDir }).prepare({
    buildId,
    tag,
    recordedId: null,
    maxBytes: settings.maxImageBytes,
    bundle: async () => ({ body: Readable.from([bundle]), size: bundle.length }),
  });
});
afterAll(async () => {
  const engine = new DockerEngine(dockerFrom(config.DOCKER_HOST), { writableDir: settings.writableDir });
  for (const c of await engine.list(settings.runnerId))
    await engine.stop({ runnerId: settings.runnerId, copyId: c.copyId, handle: c.handle });
  await engine.removeImage(tag).catch(() => {});
});

describe("a copy's /app when another runner removes the image's holder", () => {
  for (const moment of ['holder made', 'holder mounted'] as const) {
    it(`is laid on a fresh holder when it goes just after it was ${moment.split(' ')[1]}: the copy starts with the image's files`, async () => {
      const { engine, raced, lostFiles } = engineRacedAt(moment);
      const s = spec();
      const started = await engine.start(s, hooks);
      expect(raced()).toBe(true);
      expect(await appListing(started.address)).toEqual(['server.js']);
      // One copy of ours in the engine: the create undone on the lost holder left nothing behind.
      expect((await engine.list(settings.runnerId)).map((c) => c.copyId)).toEqual([s.copyId]);
      // Nor the folder the undone create made where the lost holder's files were, in podman's store.
      const lost = lostFiles();
      if (lost) expect(existsSync(dirname(lost))).toBe(false);
      else expect(moment).toBe('holder made');
      await engine.stop({ runnerId: settings.runnerId, copyId: s.copyId, handle: started.handle });
    });
  }

  it('refuses the copy, leaving nothing, when its files go away at every try: never a copy with an empty /app', async () => {
    const { engine } = engineRacedAt('holder mounted', Number.POSITIVE_INFINITY);
    const s = spec();
    await expect(engine.start(s, hooks)).rejects.toThrow(/image's files went away 3 times/);
    // No container and no tmpfs; the copy's network stays for the stop the runner then makes.
    expect((await engine.list(settings.runnerId)).filter((c) => c.handle !== null)).toEqual([]);
    expect(await engine.writableHeld(settings.runnerId)).toEqual([]);
    await engine.stop({ runnerId: settings.runnerId, copyId: s.copyId, handle: null });
    expect(await engine.list(settings.runnerId)).toEqual([]);
  });
});
