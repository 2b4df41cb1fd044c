import { lstat, open, readdir, readFile } from 'node:fs/promises';
import { extname, join, posix } from 'node:path';

/** Folders never scanned nor packed: version control and installed packages. */
export const SKIPPED_FOLDERS = new Set(['.git', 'node_modules']);

export interface FileEntry {
  /** Absolute path. */
  path: string;
  /** Relative to the walked folder, with `/`. */
  rel: string;
  size: number;
  /** Which file, in which state (inode, size, change times): equal only if it was not written since. */
  identity: string;
}

/**
 * Every regular file under a folder, in a stable order, without following links and without the
 * skipped folders. Links and special files are reported to `onOther` (the packer refuses them).
 */
export async function* walkFiles(root: string, onOther?: (rel: string, kind: string) => void, prefix = ''): AsyncGenerator<FileEntry> {
  const entries = await readdir(join(root, prefix), { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const rel = prefix ? posix.join(prefix, entry.name) : entry.name;
    if (entry.isDirectory()) {
      if (!SKIPPED_FOLDERS.has(entry.name)) yield* walkFiles(root, onOther, rel);
    } else if (entry.isFile()) {
      const path = join(root, rel);
      const info = await lstat(path, { bigint: true });
      yield { path, rel, size: Number(info.size), identity: `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}` };
    } else {
      onOther?.(rel, entry.isSymbolicLink() ? 'a link' : 'a special file');
    }
  }
}

// Formats that are binary by nature: not read at all.
const BINARY = new Set([
  '.png',
  '.jpg',
  '.jpeg',
  '.gif',
  '.webp',
  '.avif',
  '.ico',
  '.bmp',
  '.tif',
  '.tiff',
  '.psd',
  '.woff',
  '.woff2',
  '.ttf',
  '.otf',
  '.eot',
  '.mp3',
  '.mp4',
  '.m4a',
  '.webm',
  '.ogg',
  '.wav',
  '.mov',
  '.avi',
  '.zip',
  '.gz',
  '.tgz',
  '.bz2',
  '.xz',
  '.zst',
  '.7z',
  '.rar',
  '.jar',
  '.pdf',
  '.wasm',
  '.exe',
  '.dll',
  '.so',
  '.dylib',
  '.o',
  '.a',
  '.class',
  '.pyc',
]);

/** A text file's content, or null for a binary one (by its name, or a NUL in its first 8 kB as git judges). */
export async function readText(file: FileEntry): Promise<string | null> {
  if (BINARY.has(extname(file.rel).toLowerCase())) return null;
  const handle = await open(file.path, 'r');
  try {
    const head = Buffer.alloc(Math.min(8192, file.size));
    await handle.read(head, 0, head.length, 0);
    if (head.includes(0)) return null;
    return head.length === file.size ? head.toString('utf8') : await readFile(file.path, 'utf8');
  } finally {
    await handle.close();
  }
}
