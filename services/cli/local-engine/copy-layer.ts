import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { basename, join, posix } from 'node:path';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pack } from 'tar-stream';
import type { BuildContext, ContextEntry } from './build-context.js';
import { contextPath, globPaths, isGlob } from './build-recipe.js';
import { NoTail, type TailCopy } from './dockerfile-tail.js';

// A COPY's layer written in-process (issue 48, item 1), laid out as podman 4.3 (buildah 1.28)
// lays it, checked against the engine by copy-layer.int.test.ts:
// - each copied file and each folder inside a copied folder: owner 0:0, its mode, and the time the
//   context gives it (this tool sends every entry at time 0: build-context.ts);
// - the destination folder and each folder above it (the layer's diff holds every parent of a
//   changed path): their owner and mode as they were below the COPY, the time of the step;
// - names without a leading `/`, folders with a trailing one, parents before what they hold.
// Owners and modes of the folders above are not in the context: they are read from the live
// build's layer for the same COPY (same head, same line: the folders below were the same).

/** A folder's owner and mode as an earlier layer holds it, by absolute path without trailing `/`. */
export type FolderHeaders = Map<string, { uid: number; gid: number; mode: number }>;

export interface LayerEntry {
  /** In the layer, e.g. `app/server.js` or `app/lib/`. */
  name: string;
  type: 'file' | 'directory';
  mode: number;
  uid: number;
  gid: number;
  mtime: Date;
  /** A file's size and where its bytes are read from. */
  size: number;
  source?: string;
}

/** The entries of one COPY's layer; throws NoTail when the step is one this code does not lay out. */
export function copyLayerEntries(
  context: BuildContext,
  copy: TailCopy,
  workdir: string | null,
  below: FolderHeaders,
  stepTime: Date,
): LayerEntry[] {
  if (!copy.dest.startsWith('/') && !workdir)
    throw new NoTail(`the COPY on line ${copy.line} copies relative to a WORKDIR the Dockerfile does not set`);
  const dest = posix.resolve(workdir ?? '/', copy.dest);
  const byPath = new Map(context.entries.map((entry) => [entry.path, entry]));
  // A source with `*` or `?` stands for the files it matches, each copied as if named; one that
  // matches none, or a folder, is left to the engine (its refusal, its way of copying a folder).
  const sources = copy.sources.map(contextPath).flatMap((source) => {
    if (!isGlob(source)) return [source];
    const matched = globPaths(context, source);
    if (matched.length === 0) throw new NoTail(`the COPY on line ${copy.line} names ${source}, which matches no file of the build context`);
    if (matched.some((path) => byPath.get(path)?.type !== 'file'))
      throw new NoTail(`the COPY on line ${copy.line} names ${source}, which matches a folder or a link`);
    return matched;
  });
  const intoFolder = copy.dest.endsWith('/') || copy.dest === '.' || sources.length > 1 || below.has(dest);
  const entries = new Map<string, LayerEntry>();
  const put = (path: string, entry: ContextEntry) => {
    if (entry.type === 'symlink') throw new NoTail(`the COPY on line ${copy.line} copies the symbolic link ${entry.path}`);
    entries.set(path, {
      name: path.slice(1),
      type: entry.type,
      mode: entry.mode,
      uid: 0,
      gid: 0,
      mtime: new Date(0),
      size: entry.size,
      source: entry.type === 'file' ? join(context.dir, entry.path) : undefined,
    });
  };
  const folders = new Set<string>([dest]); // the destination and its parents, laid as they were below
  for (const source of sources) {
    const root = source === '' ? null : byPath.get(source);
    if (source !== '' && !root) throw new NoTail(`the COPY on line ${copy.line} names ${source}, which the build context does not hold`);
    if (root?.type === 'file') {
      const target = intoFolder ? `${dest}/${basename(source)}` : dest;
      if (!intoFolder) folders.delete(dest);
      put(target, root);
      continue;
    }
    if (root) put(dest, root); // replaced below by the destination's own header
    for (const entry of context.entries) {
      if (source !== '' && !entry.path.startsWith(`${source}/`)) continue;
      if (entry.ignored) continue; // the engine was sent it to read, and its COPY honours .dockerignore
      put(`${dest}/${source === '' ? entry.path : entry.path.slice(source.length + 1)}`, entry);
    }
  }
  for (let folder = posix.dirname(dest); folder !== '/'; folder = posix.dirname(folder)) folders.add(folder);
  folders.delete('/'); // the root is never in a layer's diff
  for (const folder of folders) {
    const header = below.get(folder);
    if (!header) throw new NoTail(`the owner of ${folder}, which the COPY on line ${copy.line} writes into, is not known here`);
    entries.set(folder, { name: folder.slice(1), type: 'directory', ...header, mtime: stepTime, size: 0 });
  }
  return [...entries.values()].map((e) => (e.type === 'directory' ? { ...e, name: `${e.name}/` } : e)).sort(parentsFirst);
}

/** Path order by segments, so a folder comes before everything it holds. */
function parentsFirst(a: LayerEntry, b: LayerEntry): number {
  const x = a.name.replace(/\/$/, '').split('/');
  const y = b.name.replace(/\/$/, '').split('/');
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  return x.length - y.length;
}

/** Writes the layer's tar to `file`; answers its digest (sha256 of the tar: the diff id) and size. */
export async function writeLayer(entries: LayerEntry[], file: string): Promise<{ digest: string; size: number }> {
  const tar = pack();
  const hash = createHash('sha256');
  let size = 0;
  const tee = new PassThrough();
  tee.on('data', (chunk: Buffer) => {
    hash.update(chunk);
    size += chunk.length;
  });
  const writing = pipeline(tar, tee, createWriteStream(file));
  try {
    for (const entry of entries) {
      const header = { name: entry.name, mode: entry.mode, uid: entry.uid, gid: entry.gid, mtime: entry.mtime };
      if (entry.type === 'directory') tar.entry({ ...header, type: 'directory' });
      else await pipeline(createReadStream(entry.source!), tar.entry({ ...header, type: 'file', size: entry.size }));
    }
    tar.finalize();
  } catch (err) {
    tar.destroy(err as Error);
    throw err;
  }
  await writing;
  return { digest: `sha256:${hash.digest('hex')}`, size };
}
