import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readFile, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import dockerignoreModule from '@balena/dockerignore';
import { pack } from 'tar-stream';

// CommonJS whose types declare an ES default: at run time the default import is the factory itself.
const dockerignore = dockerignoreModule as unknown as typeof dockerignoreModule.default;

// The build context as this tool sends it to the engine (issue 48, item 2): the project folder,
// less what .dockerignore excludes, listed once. The same list is what the build's inputs digest
// reads (build-inputs.ts) and what the tar holds, so a file the digest never read never reaches
// the engine either. dockerode's own packing applied .dockerignore to top-level names only.

export interface ContextEntry {
  /** Relative to the folder, with `/`. */
  path: string;
  type: 'file' | 'directory' | 'symlink';
  /** Permission bits (mode & 0o7777). */
  mode: number;
  /** Bytes (files). */
  size: number;
  /** A symlink's target. */
  target?: string;
  /** Sent although .dockerignore excludes it (Dockerfile, .dockerignore): the engine's COPY leaves it out. */
  ignored?: true;
}

export interface BuildContext {
  dir: string;
  /** Sorted by path, directories before what they hold. */
  entries: ContextEntry[];
  /** Bytes of the files sent. */
  bytes: number;
  /** Bytes .dockerignore kept back, by top-level name (e.g. node_modules), for the lines that say what was left out. */
  excludedBytes: number;
}

/** Names the engine needs whatever .dockerignore says (the docker CLI sends them too). */
const ALWAYS_SENT = new Set(['Dockerfile', '.dockerignore']);

/** The folder's build context: every entry .dockerignore does not exclude. */
export async function readBuildContext(dir: string): Promise<BuildContext> {
  const patterns = await readFile(join(dir, '.dockerignore'), 'utf8').then(
    (text) => text.split('\n'),
    () => [] as string[],
  );
  const ignore = dockerignore({ ignorecase: false }).add(patterns);
  // With no `!` pattern nothing under an excluded folder can come back, so it is not walked at all
  // (node_modules is then never read).
  const mayReinclude = patterns.some((p) => p.trim().startsWith('!'));
  const context: BuildContext = { dir, entries: [], bytes: 0, excludedBytes: 0 };

  async function walk(rel: string): Promise<void> {
    const names = (await readdir(join(dir, rel))).sort();
    for (const name of names) {
      const path = rel ? `${rel}/${name}` : name;
      const info = await lstat(join(dir, path));
      const alwaysSent = rel === '' && ALWAYS_SENT.has(name);
      const excluded = !alwaysSent && ignore.ignores(path);
      const ignored = alwaysSent && ignore.ignores(path) ? { ignored: true as const } : {};
      if (info.isDirectory()) {
        if (!excluded) context.entries.push({ path, type: 'directory', mode: info.mode & 0o7777, size: 0 });
        if (!excluded || mayReinclude) await walk(path);
        else context.excludedBytes += await folderBytes(join(dir, path));
      } else if (excluded) context.excludedBytes += info.size;
      else if (info.isSymbolicLink())
        context.entries.push({ path, type: 'symlink', mode: info.mode & 0o7777, size: 0, target: await readlink(join(dir, path)) });
      else if (info.isFile()) {
        context.entries.push({ path, type: 'file', mode: info.mode & 0o7777, size: info.size, ...ignored });
        context.bytes += info.size;
      }
      // Sockets, fifos and devices are not build inputs; the docker CLI skips them too.
    }
  }
  await walk('');
  return context;
}

/** Bytes of the files under a folder, read from their sizes only. */
async function folderBytes(path: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(path, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await lstat(join(entry.parentPath, entry.name)).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

/** A file's sha256 (hex), streamed. */
export async function fileDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/**
 * The context as the tar the engine's build API reads: exactly the listed entries, in order,
 * with their modes. Times are fixed, as the engine ignores them for COPY's cache (it checks
 * contents) and a tar of the same files should be the same bytes.
 */
export function contextTar(context: BuildContext): Readable {
  const tar = pack();
  const mtime = new Date(0);
  void (async () => {
    try {
      for (const entry of context.entries) {
        const header = { name: entry.path, mode: entry.mode, mtime, uid: 0, gid: 0 };
        if (entry.type === 'directory') tar.entry({ ...header, type: 'directory' });
        else if (entry.type === 'symlink') tar.entry({ ...header, type: 'symlink', linkname: entry.target });
        else {
          const sink = tar.entry({ ...header, type: 'file', size: entry.size });
          await pipeline(createReadStream(join(context.dir, entry.path)), sink);
        }
      }
      tar.finalize();
    } catch (err) {
      tar.destroy(err as Error);
    }
  })();
  return tar as unknown as Readable;
}
