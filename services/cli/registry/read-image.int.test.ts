import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveImage } from '../../../test/fixtures/make-bundle.js';
import { demoBaseLayers, fileDigest, secretStepDemo } from '../../../test/fixtures/secret-step-demo.js';
import { testEnv } from '../../../test/support/services.js';
import { SecretScanner } from '../scan/secret-scan.js';
import { readImage } from './read-image.js';

// The deploy's one read of the image (issue 32), on an image the real engine built and saved:
// what is kept to be sent and what is scanned, whatever the registry already has.
const env = testEnv() as unknown as Record<string, string>;

let work: string;
let archive: Buffer;
let baseLayers: Set<string>;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'read-image-test-'));
  const dir = await secretStepDemo(work);
  archive = await saveImage(dir, env);
  const docker = new Docker({ socketPath: env.DOCKER_HOST.replace(/^unix:\/\//, '') });
  baseLayers = await demoBaseLayers(docker);
}, 300_000);
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const spool = () => mkdtemp(join(work, 'spool-'));
const sha256 = fileDigest;

describe('the image read once for the scan and the push', () => {
  it('keeps only the layers the registry lacks, each the very bytes its digest names', async () => {
    const spoolDir = await spool();
    const asked: string[] = [];
    const present = async (digest: string) => {
      asked.push(digest);
      return baseLayers.has(digest.slice(7));
    };
    const image = await readImage(Readable.from(archive), { present, spoolDir, scan: { scanner: new SecretScanner(), baseLayers } });

    const base = image.layers.filter((layer) => baseLayers.has(layer.digest.slice(7)));
    const added = image.layers.filter((layer) => !baseLayers.has(layer.digest.slice(7)));
    expect(base.length).toBe(baseLayers.size);
    expect(added.length).toBeGreaterThanOrEqual(2); // the COPY and the RUN
    expect(asked).toEqual(image.layers.map((layer) => layer.digest));
    // The base's layers are passed over, nothing of them kept; the build's are kept whole.
    expect(base.every((layer) => layer.file === null)).toBe(true);
    for (const layer of added) expect(await sha256(layer.file!)).toBe(layer.digest);
    expect((await readdir(spoolDir)).sort()).toEqual(added.map((layer) => `${layer.digest.slice(7)}.tar`).sort());
    expect(image.configDigest).toBe(`sha256:${createHash('sha256').update(image.config!).digest('hex')}`);
    // The scan read the build's layers only, and found the key the RUN wrote.
    expect(image.scan).toMatchObject({ layers: added.length, baseLayers: base.length });
    expect(image.scan.findings).toEqual([expect.objectContaining({ where: 'image /app/settings.js', line: 1 })]);
  });

  it('keeps nothing when the registry has every layer, and still scans the layers the build added', async () => {
    const spoolDir = await spool();
    const image = await readImage(Readable.from(archive), {
      present: async () => true,
      spoolDir,
      scan: { scanner: new SecretScanner(), baseLayers },
    });
    expect(image.layers.every((layer) => layer.file === null)).toBe(true);
    expect(await readdir(spoolDir)).toEqual([]);
    // A layer the platform has was sent by an earlier deploy, yet a secret in it stops this one.
    expect(image.scan.findings).toEqual([expect.objectContaining({ where: 'image /app/settings.js' })]);
  });

  it('refuses an archive that is not one image, keeping nothing', async () => {
    const spoolDir = await spool();
    const read = readImage(Readable.from([Buffer.alloc(1024)]), { present: async () => false, spoolDir });
    await expect(read).rejects.toThrow(/no manifest\.json of one image/);
    expect(await readdir(spoolDir)).toEqual([]);
  });
});
