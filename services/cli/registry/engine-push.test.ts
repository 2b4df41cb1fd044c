import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Refusal } from '../refusal.js';
import { SecretScanner } from '../scan/secret-scan.js';
import { EnginePushUnavailable, imageFromPush, type HeldLayer } from './engine-push.js';
import type { ReceivedBlob } from './receiving-registry.js';

// What the receiving registry got, made into the image the deploy sends on: a layer that does not
// unpack to the diff id its config names is a damaged image and stops the deploy; a push the tool
// cannot read (another compression, another image) is not a refusal: the image is saved instead.

const digestOf = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

let spoolDir: string;
beforeEach(async () => {
  spoolDir = await mkdtemp(join(tmpdir(), 'engine-push-unit-'));
});
afterEach(async () => {
  await rm(spoolDir, { recursive: true, force: true });
});

/** A push as received: one gzip layer (`sent`), and a config naming `diffId` as that layer's. */
async function received(sent: Buffer, diffId: string, mediaType = 'application/vnd.oci.image.layer.v1.tar+gzip') {
  const blobs = new Map<string, ReceivedBlob>();
  const keep = async (bytes: Buffer) => {
    const file = join(spoolDir, `blob-${digestOf(bytes).slice(7)}`);
    await writeFile(file, bytes);
    blobs.set(digestOf(bytes), { file, size: bytes.length });
  };
  const layer = gzipSync(sent);
  const config = Buffer.from(JSON.stringify({ rootfs: { type: 'layers', diff_ids: [diffId] } }));
  await keep(layer);
  await keep(config);
  const manifest = Buffer.from(JSON.stringify({ config: { digest: digestOf(config) }, layers: [{ digest: digestOf(layer), mediaType }] }));
  return { blobs, manifest, image: { id: digestOf(config), diffIds: [diffId], size: 1 << 20 } };
}

// Marked as the base's, so the check, not the scan, is what reads it.
const options = (diffId: string) => ({
  present: async () => null,
  spoolDir,
  scan: { scanner: new SecretScanner(), baseLayers: new Set([diffId.slice(7)]) },
});

describe('the image made of what the engine pushed', () => {
  it('takes a layer that unpacks to its diff id', async () => {
    const tarBytes = Buffer.alloc(2048, 0);
    const push = await received(tarBytes, digestOf(tarBytes));
    const read = await imageFromPush(push.manifest, push.blobs, push.image, options(digestOf(tarBytes)), 1 << 20);
    expect(read.layers).toEqual([{ digest: digestOf(tarBytes), size: 2048, file: join(spoolDir, `${digestOf(tarBytes).slice(7)}.tar`) }]);
  });

  it('keeps a layer the platform holds unread, with the repository of the workspace it is to be mounted from', async () => {
    const tarBytes = Buffer.alloc(2048, 0);
    const diffId = digestOf(tarBytes);
    // In the project's own repository, then only in another project's.
    for (const held of [{ size: 2048 }, { size: 2048, mountFrom: 'ws/other-project' }] as HeldLayer[]) {
      const push = await received(tarBytes, diffId);
      // The engine sent no bytes of the layer: the receiving registry said it was there.
      const { config } = JSON.parse(push.manifest.toString()) as { config: { digest: string } };
      const claimed = Buffer.from(
        JSON.stringify({ config, layers: [{ digest: diffId, mediaType: 'application/vnd.oci.image.layer.v1.tar' }] }),
      );
      const read = await imageFromPush(claimed, push.blobs, push.image, { ...options(diffId), present: async () => held }, 1 << 20);
      expect(read.layers).toEqual([{ digest: diffId, size: 2048, file: null, ...(held.mountFrom ? { mountFrom: held.mountFrom } : {}) }]);
      expect(read.fromEngine?.layers).toBe(0);
    }
  });

  it('unpacks a layer the image holds twice once', async () => {
    const tarBytes = Buffer.alloc(2048, 0);
    const diffId = digestOf(tarBytes);
    const push = await received(tarBytes, diffId);
    // The config and manifest name the one layer twice, as two steps that made the same files do.
    const manifest = JSON.parse(push.manifest.toString()) as { config: { digest: string }; layers: unknown[] };
    const configBlob = push.blobs.get(manifest.config.digest)!;
    const config = Buffer.from(JSON.stringify({ rootfs: { type: 'layers', diff_ids: [diffId, diffId] } }));
    await writeFile(configBlob.file, config);
    push.blobs.delete(manifest.config.digest);
    push.blobs.set(digestOf(config), { file: configBlob.file, size: config.length });
    const twice = Buffer.from(JSON.stringify({ config: { digest: digestOf(config) }, layers: [manifest.layers[0], manifest.layers[0]] }));
    const read = await imageFromPush(
      twice,
      push.blobs,
      { ...push.image, id: digestOf(config), diffIds: [diffId, diffId] },
      options(diffId),
      1 << 20,
    );
    expect(read.layers.map((layer) => [layer.digest, layer.size])).toEqual([
      [diffId, 2048],
      [diffId, 2048],
    ]);
    expect(read.fromEngine?.layers).toBe(1);
  });

  it('stops the deploy on a layer that does not unpack to its diff id (a damaged image)', async () => {
    const claimed = digestOf(Buffer.from('the layer the config names'));
    const push = await received(Buffer.alloc(2048, 7), claimed);
    const read = imageFromPush(push.manifest, push.blobs, push.image, options(claimed), 1 << 20);
    await expect(read).rejects.toBeInstanceOf(Refusal);
    await expect(read).rejects.toThrow(/does not unpack to its diff id sha256:[0-9a-f]{64}, so the image was not deployed/);
  });

  it('stops on a layer that unpacks past the bound', async () => {
    const tarBytes = Buffer.alloc(4096, 0);
    const push = await received(tarBytes, digestOf(tarBytes));
    await expect(imageFromPush(push.manifest, push.blobs, push.image, options(digestOf(tarBytes)), 1024)).rejects.toThrow(
      /unpacks to more than the image's 1024 bytes/,
    );
  });

  it('leaves to the save a layer compressed in a way it does not read, a manifest that is not JSON, and a config that is not the image', async () => {
    const tarBytes = Buffer.alloc(1024, 0);
    const odd = await received(tarBytes, digestOf(tarBytes), 'application/vnd.oci.image.layer.v1.tar+encrypted');
    await expect(imageFromPush(odd.manifest, odd.blobs, odd.image, options(digestOf(tarBytes)), 1 << 20)).rejects.toBeInstanceOf(
      EnginePushUnavailable,
    );
    const garbled = await received(tarBytes, digestOf(tarBytes));
    await expect(
      imageFromPush(Buffer.from('{not json'), garbled.blobs, garbled.image, options(digestOf(tarBytes)), 1 << 20),
    ).rejects.toBeInstanceOf(EnginePushUnavailable);
    const other = await received(tarBytes, digestOf(tarBytes));
    const elsewhere = { ...other.image, id: digestOf(Buffer.from('another image')) };
    await expect(imageFromPush(other.manifest, other.blobs, elsewhere, options(digestOf(tarBytes)), 1 << 20)).rejects.toBeInstanceOf(
      EnginePushUnavailable,
    );
  });
});
