import { createHash } from 'node:crypto';
import { lstat, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { configPath } from '../config/config-file.js';
import { fileDigest } from './build-context.js';

// The sha256 of each context file, kept between deploys by what git's index keys on (size, inode,
// mtime and ctime, in nanoseconds): an unchanged redeploy of an app with 100 MB of node_modules
// then reads no file, only stats them, and takes about the time of `pitch validate` (issue 48).
// As git does for "racy" entries, a file changed within one tick of its filesystem's clock before
// the cache was written is not trusted and is read again, as a second write in the same tick
// would keep its times. The tick is taken from the stamp itself: a filesystem that stamps whole
// seconds (FAT's two, HFS+'s and ext3's one) gets 2 s; one with sub-second stamps (ext4, xfs,
// btrfs, tmpfs, overlayfs: a coarse clock of at most 10 ms on Linux) gets 100 ms, so the
// node_modules an install wrote a second before the first deploy are kept by it.

const WHOLE_SECOND_TICK_MS = 2_000n;
const FINE_TICK_MS = 100n;

interface Stamp {
  key: string;
  digest: string;
  /** From when (ms since the epoch) this stamp cannot share a tick with a later write. */
  trustedFromMs: string;
}

export class FileDigestCache {
  private readonly next = new Map<string, Stamp>();
  private readonly file: string;
  private readonly known: Map<string, Stamp>;
  private readonly read: (path: string) => Promise<string>;

  private constructor(file: string, known: Map<string, Stamp>, read: (path: string) => Promise<string>) {
    this.file = file;
    this.known = known;
    this.read = read;
  }

  /** The cache of one project folder (its absolute path), kept beside the tool's config file. */
  static async open(dir: string, read: (path: string) => Promise<string> = fileDigest): Promise<FileDigestCache> {
    const name = createHash('sha256').update(dir).digest('hex').slice(0, 32);
    const file = join(dirname(configPath()), 'file-digests', `${name}.json`);
    const known = await readFile(file, 'utf8').then(
      (text) => new Map(Object.entries(JSON.parse(text) as Record<string, Stamp>)),
      () => new Map<string, Stamp>(),
    );
    return new FileDigestCache(file, known, read);
  }

  /**
   * The file's sha256 (hex): the cached one when its stamp is unchanged, else read. A file read
   * once in this deploy is not read again for the same stamp: the inputs digest and the recipe ask
   * for the same files, and a new or recent one (100 MB of node_modules just installed) would be
   * read twice.
   */
  async digest(path: string): Promise<string> {
    const info = await lstat(path, { bigint: true });
    const key = `${info.size} ${info.ino} ${info.mtimeNs} ${info.ctimeNs}`;
    const known = this.next.get(path) ?? this.known.get(path);
    const digest = known?.key === key ? known.digest : await this.read(path);
    const tick = info.mtimeNs % 1_000_000_000n === 0n ? WHOLE_SECOND_TICK_MS : FINE_TICK_MS;
    this.next.set(path, { key, digest, trustedFromMs: String(info.mtimeNs / 1_000_000n + tick) });
    return digest;
  }

  /** Writes the stamps of the files asked about this time (no others), less those still within their tick. */
  async save(): Promise<void> {
    const now = BigInt(Date.now());
    const kept = Object.fromEntries([...this.next].filter(([, stamp]) => BigInt(stamp.trustedFromMs) < now));
    // The same files with the same stamps as the file holds: nothing to write (an unchanged redeploy).
    const same = Object.entries(kept);
    if (same.length === this.known.size && same.every(([path, stamp]) => this.known.get(path)?.key === stamp.key)) return;
    await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${process.pid}.tmp`;
    await writeFile(temp, JSON.stringify(kept), { mode: 0o600 });
    await rename(temp, this.file);
  }
}
