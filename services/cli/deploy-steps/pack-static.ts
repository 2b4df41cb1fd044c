import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { posix } from 'node:path';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { StaticDigest } from '@demo-rooms/contract/node';
import { Refusal } from '../refusal.js';
import { walkFiles } from '../scan/walk-files.js';
import { GZIP_LEVEL } from './gzip-level.js';
import { parallelGzip } from './parallel-gzip.js';

export interface PackedSite {
  files: number;
  /** Bytes of file content, before packing. */
  contentBytes: number;
  /** Bytes of the gzipped tar: what is uploaded. */
  sizeBytes: number;
  /** The files' digest by path and content, as the platform's unpack works it out (Build.digest). */
  digest: string;
}

/**
 * A gzipped tar of the output folder with index.html at its root: files and folders only (spec
 * 4.1), without .git or node_modules. A link or special file is a refusal here rather than a 422
 * after the upload. `signal` stops it (the deploy aborts packing when a scan running beside it fails).
 */
export async function packStaticSite(output: string, file: string, signal?: AbortSignal): Promise<PackedSite> {
  const others: string[] = [];
  const pack = tar.pack();
  const writing = pipeline(pack, parallelGzip(GZIP_LEVEL), createWriteStream(file), { signal });
  const folders = new Set<string>();
  let files = 0;
  let contentBytes = 0;
  const digest = new StaticDigest();
  try {
    for await (const entry of walkFiles(output, (rel, kind) => others.push(`${rel} is ${kind}`))) {
      signal?.throwIfAborted();
      if (others.length > 0) break;
      for (let folder = posix.dirname(entry.rel), chain: string[] = []; ; folder = posix.dirname(folder)) {
        if (folder === '.' || folders.has(folder)) {
          for (const name of chain.reverse()) {
            folders.add(name);
            pack.entry({ name: `${name}/`, type: 'directory', mode: 0o755 });
          }
          break;
        }
        chain.push(folder);
      }
      const hash = createHash('sha256');
      await new Promise<void>((resolve, reject) => {
        const sink = pack.entry({ name: entry.rel, size: entry.size, mode: 0o644, type: 'file' }, (err) => (err ? reject(err) : resolve()));
        // Stopping the pack destroys the entry being written: its error must land here, not crash the tool.
        sink.once('error', reject);
        createReadStream(entry.path, { highWaterMark: 1 << 20 })
          .on('error', reject)
          .on('data', (chunk) => hash.update(chunk))
          .pipe(sink);
      });
      digest.add(entry.rel, hash.digest('hex'));
      files++;
      contentBytes += entry.size;
    }
  } catch (err) {
    pack.destroy(err as Error);
    await writing.catch(() => {});
    throw err;
  }
  pack.finalize();
  await writing;
  if (others.length > 0)
    throw new Refusal(
      `the output holds something other than files and folders: ${others[0]}`,
      'the platform serves files and folders only; copy the file in place of the link',
    );
  return { files, contentBytes, sizeBytes: (await stat(file)).size, digest: digest.digest() };
}
