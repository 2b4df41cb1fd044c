import { createHash } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { configPath } from '../config/config-file.js';

// The small blobs of the images this tool pushed (configs, and the layers its Dockerfiles' last
// COPY steps made), kept beside its config file by digest (issue 48). A redeploy laid in-process
// starts from the live build's config and its tail layers: read here, they need neither the
// registry's token nor its round trips, which were 0.1 s before the rehearsal could start. A
// kept blob is trusted only when its bytes still hash to its name; anything else is read from
// the registry as before. The store is bounded (KEPT_BOUNDS): a blob above 4 MB is not kept (nor
// read), and past 64 MB or 1,000 blobs in all the blobs used longest ago go first (a read marks a
// blob used), so the trim after a push stats at most about a thousand files.

/** The store's bounds: a blob above `aBlob` bytes is not kept, and past `inAll` bytes or `count` blobs the blobs used longest ago go. */
export const KEPT_BOUNDS = { aBlob: 4 << 20, inAll: 64 << 20, count: 1_000 };
const DIGEST = /^sha256:([0-9a-f]{64})$/;

/** A blob to keep: its bytes, or the file that holds them. */
export type BlobToKeep = { digest: string } & ({ bytes: Buffer } | { file: string });

function storeDir(): string {
  return join(dirname(configPath()), 'blobs');
}

function pathOf(digest: string): string | null {
  const hex = DIGEST.exec(digest)?.[1];
  return hex ? join(storeDir(), hex) : null;
}

/** The blob's bytes when this machine keeps them whole and unaltered; null otherwise (a file over the bound is not read). */
export async function keptBlob(digest: string): Promise<Buffer | null> {
  const path = pathOf(digest);
  if (!path || ((await stat(path).catch(() => null))?.size ?? Number.POSITIVE_INFINITY) > KEPT_BOUNDS.aBlob) return null;
  const bytes = await readFile(path).catch(() => null);
  if (!bytes || `sha256:${createHash('sha256').update(bytes).digest('hex')}` !== digest) return null;
  const now = new Date();
  await utimes(path, now, now).catch(() => {});
  return bytes;
}

/**
 * Keeps these blobs (each within the bounds), then lets the ones used longest ago go past the
 * store's bound. A store that cannot be written costs the next redeploy the registry's round
 * trips, nothing more.
 */
export async function keepBlobs(blobs: BlobToKeep[], bounds = KEPT_BOUNDS): Promise<void> {
  const dir = storeDir();
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    for (const blob of blobs) {
      const path = pathOf(blob.digest);
      if (!path) continue;
      const size = 'bytes' in blob ? blob.bytes.length : (await stat(blob.file)).size;
      if (size > bounds.aBlob) continue;
      const temp = `${path}.${process.pid}.tmp`;
      if ('bytes' in blob) await writeFile(temp, blob.bytes, { mode: 0o600 });
      else await copyFile(blob.file, temp);
      await rename(temp, path);
    }
    await trim(dir, bounds);
  } catch {}
}

/** The blobs used longest ago removed until the rest fit in the store's bytes and count. */
async function trim(dir: string, bounds: typeof KEPT_BOUNDS): Promise<void> {
  const names = (await readdir(dir)).filter((name) => /^[0-9a-f]{64}$/.test(name));
  const files = await Promise.all(
    names.map(async (name) => {
      const info = await stat(join(dir, name)).catch(() => null);
      return { name, size: info?.size ?? 0, used: info?.mtimeMs ?? 0 };
    }),
  );
  let total = files.reduce((sum, file) => sum + file.size, 0);
  let count = files.length;
  for (const file of files.sort((a, b) => a.used - b.used)) {
    if (total <= bounds.inAll && count <= bounds.count) break;
    await rm(join(dir, file.name), { force: true });
    total -= file.size;
    count--;
  }
}
