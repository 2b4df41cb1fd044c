import { createHash } from 'node:crypto';
import { mkdtemp, readdir, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keepBlobs, keptBlob } from './kept-blobs.js';

const digestOf = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const blob = (text: string) => {
  const bytes = Buffer.from(text);
  return { digest: digestOf(bytes), bytes };
};

let home: string;
const store = () => join(home, 'pitch', 'blobs');
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'kept-blobs-'));
  vi.stubEnv('XDG_CONFIG_HOME', home);
});
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the blobs this machine keeps for the next redeploy', () => {
  it('gives back what it kept, from bytes or from a file, by digest', async () => {
    const config = blob('{"config":{}}');
    const layerBytes = Buffer.from('a tail layer');
    const layerFile = join(home, 'layer.tar');
    await writeFile(layerFile, layerBytes);
    await keepBlobs([config, { digest: digestOf(layerBytes), file: layerFile }]);
    expect(await keptBlob(config.digest)).toEqual(config.bytes);
    expect(await keptBlob(digestOf(layerBytes))).toEqual(layerBytes);
    expect(await keptBlob(blob('never kept').digest)).toBeNull();
  });

  it('answers nothing for bytes that no longer hash to their name, or a name that is not a digest', async () => {
    const config = blob('{"config":{"Env":[]}}');
    await keepBlobs([config, { digest: 'sha256:../../config', bytes: Buffer.from('x') }]);
    await writeFile(join(store(), config.digest.slice('sha256:'.length)), '{"config":{"Env":["EVIL=1"]}}');
    expect(await keptBlob(config.digest)).toBeNull();
    expect(await keptBlob('sha256:../../config')).toBeNull();
    expect(await readdir(store())).toEqual([config.digest.slice('sha256:'.length)]);
  });

  it('keeps no blob above its bound, and lets the ones used longest ago go past the store bound', async () => {
    const [a, b, c] = ['first blob', 'second blob', 'third blob'].map(blob);
    const big = blob('x'.repeat(100));
    const bounds = { aBlob: 50, inAll: a.bytes.length + b.bytes.length + c.bytes.length - 1, count: 10 };
    await keepBlobs([a, b, big], bounds);
    expect(await keptBlob(big.digest)).toBeNull();
    // a was used after b: b is the one used longest ago when c comes.
    const hex = (d: string) => d.slice('sha256:'.length);
    await utimes(join(store(), hex(a.digest)), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    await utimes(join(store(), hex(b.digest)), new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
    expect(await keptBlob(a.digest)).toEqual(a.bytes);
    await keepBlobs([c], bounds);
    expect(await keptBlob(b.digest)).toBeNull();
    expect(await keptBlob(a.digest)).toEqual(a.bytes);
    expect(await keptBlob(c.digest)).toEqual(c.bytes);
  });

  it('keeps at most its count of blobs, the ones used longest ago going first', async () => {
    const blobs = ['one', 'two', 'three'].map(blob);
    const bounds = { aBlob: 50, inAll: 1 << 20, count: 2 };
    for (const [i, b] of blobs.entries()) {
      await keepBlobs([b], bounds);
      const at = new Date(Date.now() - (10 - i) * 60_000);
      await utimes(join(store(), b.digest.slice('sha256:'.length)), at, at);
    }
    expect(await keptBlob(blobs[0].digest)).toBeNull();
    expect(await keptBlob(blobs[1].digest)).toEqual(blobs[1].bytes);
    expect(await keptBlob(blobs[2].digest)).toEqual(blobs[2].bytes);
  });

  it('does not read a file in the store larger than a blob it would keep', async () => {
    const huge = blob('y'.repeat((4 << 20) + 1));
    await keepBlobs([blob('makes the folder')]);
    await writeFile(join(store(), huge.digest.slice('sha256:'.length)), huge.bytes);
    expect(await keptBlob(huge.digest)).toBeNull();
  });

  it('costs nothing but the round trips when the store cannot be written', async () => {
    await writeFile(join(home, 'pitch'), 'a file where the folder would be');
    await expect(keepBlobs([blob('anything')])).resolves.toBeUndefined();
    expect(await keptBlob(blob('anything').digest)).toBeNull();
  });
});
