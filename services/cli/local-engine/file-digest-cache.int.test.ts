import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fileDigest } from './build-context.js';
import { FileDigestCache } from './file-digest-cache.js';

// The digests kept between deploys: a file whose bytes changed is read again even when its size
// and mtime were put back (its ctime moved), and a file changed just now is not kept at all.

let dir: string;
let home: string;
const savedHome = process.env.XDG_CONFIG_HOME;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'digest-cache-'));
  home = await mkdtemp(join(tmpdir(), 'digest-cache-home-'));
  process.env.XDG_CONFIG_HOME = home;
});
afterAll(async () => {
  process.env.XDG_CONFIG_HOME = savedHome;
  await rm(dir, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

it('keeps an old file’s digest, reads a changed one again whatever its size and mtime, and keeps no recent one', async () => {
  const old = join(dir, 'old.js');
  const recent = join(dir, 'recent.js');
  await writeFile(old, 'aaaa');
  await writeFile(recent, 'rrrr');
  const past = new Date(Date.now() - 60_000);
  await utimes(old, past, past);

  const first = await FileDigestCache.open(dir);
  expect(await first.digest(old)).toBe(sha('aaaa'));
  expect(await first.digest(recent)).toBe(sha('rrrr'));
  await first.save();
  const [file] = await readdir(join(home, 'pitch', 'file-digests'));
  const kept = JSON.parse(await readFile(join(home, 'pitch', 'file-digests', file), 'utf8'));
  expect(Object.keys(kept)).toEqual([old]);
  expect((await stat(join(home, 'pitch', 'file-digests', file))).mode & 0o777).toBe(0o600);

  // The same size and mtime, other bytes: the ctime moved, so the file is read again.
  await writeFile(old, 'bbbb');
  await utimes(old, past, past);
  const second = await FileDigestCache.open(dir);
  expect(await second.digest(old)).toBe(sha('bbbb'));
});

it('writes nothing when the same files keep the same stamps, and writes again when one changed', async () => {
  const other = await mkdtemp(join(tmpdir(), 'digest-cache-same-'));
  try {
    const kept = join(other, 'kept.js');
    await writeFile(kept, 'kkkk');
    const past = new Date(Date.now() - 60_000);
    await utimes(kept, past, past);
    const first = await FileDigestCache.open(other);
    await first.digest(kept);
    await first.save();
    const folder = join(home, 'pitch', 'file-digests');
    const files = await readdir(folder);
    const written = async () => Object.fromEntries(await Promise.all(files.map(async (f) => [f, (await stat(join(folder, f))).ino])));
    const before = await written();

    // An unchanged redeploy: the same stamps, so the file is not written again (a write replaces it: a new inode).
    const same = await FileDigestCache.open(other);
    await same.digest(kept);
    await same.save();
    expect(await written()).toEqual(before);

    await writeFile(kept, 'changed');
    await utimes(kept, past, past);
    const changed = await FileDigestCache.open(other);
    expect(await changed.digest(kept)).toBe(sha('changed'));
    await changed.save();
    expect(await written()).not.toEqual(before);
  } finally {
    await rm(other, { recursive: true, force: true });
  }
});

it('reads a file once in a deploy when it is asked for again with the same stamp, and again once it changed', async () => {
  const other = await mkdtemp(join(tmpdir(), 'digest-cache-once-'));
  try {
    // Just written, so no earlier deploy could have kept it: both asks would read it without the memo.
    const fresh = join(other, 'fresh.js');
    await writeFile(fresh, 'ffff');
    const reads: string[] = [];
    const cache = await FileDigestCache.open(other, (path) => (reads.push(path), fileDigest(path)));
    expect(await cache.digest(fresh)).toBe(sha('ffff'));
    expect(await cache.digest(fresh)).toBe(sha('ffff'));
    expect(reads).toEqual([fresh]);
    await writeFile(fresh, 'gggg');
    expect(await cache.digest(fresh)).toBe(sha('gggg'));
    expect(reads).toEqual([fresh, fresh]);
  } finally {
    await rm(other, { recursive: true, force: true });
  }
});

it('keeps a file written half a second ago on a filesystem with sub-second stamps, and not one stamped in whole seconds', async () => {
  const other = await mkdtemp(join(tmpdir(), 'digest-cache-tick-'));
  try {
    const [fine, whole] = [join(other, 'fine.bin'), join(other, 'whole.bin')];
    await writeFile(fine, 'ffff');
    await writeFile(whole, 'wwww');
    // Half a second ago, off the whole second (as an install a moment before the deploy leaves it).
    const halfAgo = Date.now() - 500;
    await utimes(fine, new Date(halfAgo), new Date(halfAgo - (halfAgo % 1000 === 0 ? 1 : 0)));
    // The last whole second at least a second ago: as a filesystem that stamps whole seconds would.
    const second = new Date(Math.floor((Date.now() - 1000) / 1000) * 1000);
    await utimes(whole, second, second);
    expect((await stat(whole, { bigint: true })).mtimeNs % 1_000_000_000n).toBe(0n);
    const cache = await FileDigestCache.open(other);
    await cache.digest(fine);
    await cache.digest(whole);
    await cache.save();
    const folder = join(home, 'pitch', 'file-digests');
    const files = await Promise.all((await readdir(folder)).map(async (f) => JSON.parse(await readFile(join(folder, f), 'utf8'))));
    const keptHere = files.find((kept) => Object.keys(kept).some((path) => path.startsWith(other)));
    expect(Object.keys(keptHere)).toEqual([fine]);
  } finally {
    await rm(other, { recursive: true, force: true });
  }
});
