import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { bundleOf, imageEntries, type TarEntry } from '../../test/fixtures/bundle-tricks.js';
import { BundleRefusal, readBundle, type BundleLimits } from './read-bundle.js';

const roomy: BundleLimits = { maxEntries: 100, maxHeldBytes: 1024 * 1024, maxUnpackedBytes: 64 * 1024 * 1024 };
const read = async (entries: TarEntry[], limits = roomy) => readBundle(Readable.from(await bundleOf(entries)), limits);

describe('reading a container bundle', () => {
  it("takes one well-formed image and records its id, the config's digest", async () => {
    const image = await imageEntries();
    const read1 = await read(image.entries);
    expect(read1).toMatchObject({ id: image.imageId, cmd: ['node', 'server.js'], layers: 1 });
    expect(read1.archiveBytes).toBeGreaterThan(0);
  });

  it('refuses every spelling by which a bundle could carry a second manifest or an index', async () => {
    const { entries, configName } = await imageEntries();
    const own = String(entries.find((e) => e.name === 'manifest.json')!.body);
    const tricks: TarEntry[][] = [
      [{ name: './manifest.json', body: own }, ...entries],
      [{ name: 'Manifest.json', body: own }, ...entries],
      [{ name: 'MANIFEST.JSON', body: own }, ...entries],
      [{ name: 'manifest.json/', body: own }, ...entries],
      [{ name: 'manifest.json/', type: 'directory' }, ...entries],
      [{ name: './/manifest.json', body: own }, ...entries],
      [{ name: 'index.json', body: '{"schemaVersion":2,"manifests":[]}' }, ...entries],
      [{ name: 'oci-layout', body: '{"imageLayoutVersion":"1.0.0"}' }, ...entries],
      [...entries, { name: 'extra.json', body: '{}' }],
      [...entries, { name: 'link', type: 'link', linkname: configName }],
      entries.filter((e) => e.name !== configName),
    ];
    for (const trick of tricks) {
      await expect(read(trick), trick[0].name).rejects.toBeInstanceOf(BundleRefusal);
    }
  });

  it('refuses a bundle of more entries than the limit', async () => {
    const { entries } = await imageEntries();
    const many = Array.from({ length: 50 }, (_, i) => ({ name: `${String(i).padStart(64, '0')}/VERSION`, body: '1.0' }));
    await expect(read([...many, ...entries], { ...roomy, maxEntries: 20 })).rejects.toThrow(/more than 20 entries/);
  });

  it('refuses JSON files that would together hold more memory than the limit', async () => {
    const { entries } = await imageEntries();
    // Each under the per-file bound, together over the held bound; all spaces, so the gzip is tiny.
    const big = Array.from({ length: 8 }, (_, i) => ({ name: `pad${i}.json`, body: ' '.repeat(256 * 1024) }));
    await expect(read([...big, ...entries], { ...roomy, maxHeldBytes: 1024 * 1024 })).rejects.toThrow(
      /JSON files come to more than 1048576 bytes/,
    );
  });

  it('refuses a bundle that unpacks past the limit (a gzip bomb), without reading it all', async () => {
    const { entries } = await imageEntries();
    const bomb = { name: `${'f'.repeat(64)}.tar`, body: Buffer.alloc(32 * 1024 * 1024) };
    await expect(read([bomb, ...entries], { ...roomy, maxUnpackedBytes: 1024 * 1024 })).rejects.toThrow(
      /unpacks to more than 1048576 bytes/,
    );
  });
});
