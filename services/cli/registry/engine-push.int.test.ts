import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoBaseLayers, fileDigest, secretStepDemo } from '../../../test/fixtures/secret-step-demo.js';
import { testEnv } from '../../../test/support/services.js';
import { readBuildContext } from '../local-engine/build-context.js';
import { buildImage } from '../local-engine/build-image.js';
import { SecretScanner } from '../scan/secret-scan.js';
import { EnginePushUnavailable, readImageByEnginePush, type InspectedImage } from './engine-push.js';

// The redeploy's read of the image through the engine's own push (issue 32), on the real engine
// (podman's API): the engine sends to the tool's receiving registry only the layers it is not
// told the platform has, and what arrives is unpacked, checked against the config and scanned.
const env = testEnv() as unknown as Record<string, string>;
const docker = new Docker({ socketPath: env.DOCKER_HOST.replace(/^unix:\/\//, '') });
const tag = `localhost/engine-push-test:${Date.now()}`;

let work: string;
let image: InspectedImage;
let baseLayers: Set<string>;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'engine-push-test-'));
  const dir = await secretStepDemo(work);
  await buildImage(docker, await readBuildContext(dir), tag, () => {});
  const built = await docker.getImage(tag).inspect();
  image = { id: built.Id, diffIds: built.RootFS.Layers!, size: built.Size };
  baseLayers = await demoBaseLayers(docker);
}, 300_000);
afterAll(async () => {
  await docker
    .getImage(tag)
    .remove()
    .catch(() => {});
  await rm(work, { recursive: true, force: true });
});

const sha256 = fileDigest;

describe("the image read through the engine's push", () => {
  it('brings only the layers the platform lacks, each unpacked to its diff id, and scans them', async () => {
    const spoolDir = await mkdtemp(join(work, 'spool-'));
    // The platform has the base's layers (an earlier deploy sent them), with these sizes.
    const present = async (digest: string) => (baseLayers.has(digest.slice(7)) ? { size: 4242 } : null);
    const read = await readImageByEnginePush(docker, tag, image, { present, spoolDir, scan: { scanner: new SecretScanner(), baseLayers } });

    expect(read.layers.map((layer) => layer.digest)).toEqual(image.diffIds);
    const base = read.layers.filter((layer) => baseLayers.has(layer.digest.slice(7)));
    const added = read.layers.filter((layer) => !baseLayers.has(layer.digest.slice(7)));
    expect(base.length).toBe(baseLayers.size);
    expect(added.length).toBe(2); // the COPY and the RUN
    // The base never left the engine: no file, the platform's size; the build's layers arrived whole.
    expect(base.every((layer) => layer.file === null && layer.size === 4242)).toBe(true);
    for (const layer of added) expect(await sha256(layer.file!)).toBe(layer.digest);
    expect(read.fromEngine?.layers).toBe(2);
    expect(read.fromEngine!.bytes).toBeLessThan(64 * 1024);
    // Nothing else is left in the spool: the compressed uploads went once unpacked.
    expect((await readdir(spoolDir)).sort()).toEqual(added.map((layer) => `${layer.digest.slice(7)}.tar`).sort());
    // The config is the image's own.
    expect(read.configDigest).toBe(image.id.startsWith('sha256:') ? image.id : `sha256:${image.id}`);
    expect(`sha256:${createHash('sha256').update(read.config!).digest('hex')}`).toBe(read.configDigest);
    // The scan read the layers the engine sent and found the key the RUN wrote.
    expect(read.scan).toMatchObject({ layers: 2, baseLayers: base.length });
    expect(read.scan.findings).toEqual([expect.objectContaining({ where: 'image /app/settings.js', line: 1 })]);
  });

  it('brings every layer when the platform has none', async () => {
    const spoolDir = await mkdtemp(join(work, 'spool-'));
    const read = await readImageByEnginePush(docker, tag, image, {
      present: async () => null,
      spoolDir,
      scan: { scanner: new SecretScanner(), baseLayers },
    });
    expect(read.layers.every((layer) => layer.file !== null)).toBe(true);
    for (const layer of read.layers) expect(await sha256(layer.file!)).toBe(layer.digest);
    expect(read.fromEngine?.layers).toBe(image.diffIds.length);
  }, 120_000);

  it('is unavailable, not a refusal, for an image the engine does not have: the deploy saves the image instead', async () => {
    const spoolDir = await mkdtemp(join(work, 'spool-'));
    const read = readImageByEnginePush(docker, 'localhost/engine-push-test:missing', image, {
      present: async () => null,
      spoolDir,
      scan: { scanner: new SecretScanner(), baseLayers },
    });
    await expect(read).rejects.toBeInstanceOf(EnginePushUnavailable);
  });
});
