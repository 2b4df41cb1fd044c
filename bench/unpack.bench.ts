// How much the archive checks cost: unpackArchive writing every file to disk, against GNU
// `tar -xzf` doing the same work unchecked. Run: npx tsx bench/unpack.bench.ts
//
// The archive: 3,000 files, ~100 MB unpacked, sizes from a few hundred bytes to 8 MB, half of them
// text-like (gzips ~5:1), half random bytes (does not gzip). Best of three runs each.

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { END, file, mixedBlocks, writeTgz } from '../test/fixtures/archives/tar-builder.js';
import { unpackArchive } from '../workers/archive-unpack/unpack-archive.js';
import { figure } from './report.js';

const run = promisify(execFile);
const FILES = 3_000;
const RUNS = 3;

/** Sizes: most files small, some medium, a few large, ~100 MB in all (deterministic). */
function sizeOf(i: number): number {
  if (i % 300 === 7) return 2 * 1024 * 1024 + (i % 3) * 1024 * 1024; // 10 files, 2–4 MiB
  if (i % 20 === 3) return 100 * 1024 + ((i * 7919) % (300 * 1024)); // 150 files, 100–400 KiB
  return 300 + ((i * 104729) % (24 * 1024)); // the rest, 0.3–24 KiB
}

const isRandom = (i: number) => Math.floor(i / 3) % 2 === 1;

function contentOf(i: number, size: number): Buffer {
  if (isRandom(i)) return randomBytes(size);
  const out = Buffer.alloc(size);
  for (let at = 0, k = i; at < size; at += 64 * 1024, k++)
    mixedBlocks[k % mixedBlocks.length].copy(out, at, 0, Math.min(64 * 1024, size - at));
  return out;
}

function* archive(): Generator<Buffer> {
  yield* file('index.html', '<!doctype html><h1>bench</h1>\n');
  for (let i = 1; i < FILES; i++)
    yield* file(`section-${i % 12}/part-${i % 7}/file-${i}.${isRandom(i) ? 'bin' : 'txt'}`, contentOf(i, sizeOf(i)));
  yield END;
}

async function best(label: string, once: (out: string) => Promise<void>, root: string): Promise<number> {
  let fastest = Infinity;
  for (let r = 0; r < RUNS; r++) {
    const out = join(root, `${label}-${r}`);
    await mkdir(out);
    const started = performance.now();
    await once(out);
    fastest = Math.min(fastest, performance.now() - started);
    await rm(out, { recursive: true, force: true });
  }
  return fastest;
}

async function ours(tgz: string, out: string): Promise<void> {
  const made = new Set<string>();
  await unpackArchive(createReadStream(tgz), async (f, body) => {
    const target = join(out, f.path);
    const folder = dirname(target);
    if (!made.has(folder)) {
      await mkdir(folder, { recursive: true });
      made.add(folder);
    }
    await pipeline(body, createWriteStream(target));
  });
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'unpack-bench-'));
  try {
    const tgz = join(root, 'site.tgz');
    let unpacked = 0;
    for (let i = 1; i < FILES; i++) unpacked += sizeOf(i);
    const built = performance.now();
    await writeTgz(tgz, archive());
    const packed = (await stat(tgz)).size;
    const MB = unpacked / 1e6;
    console.log(
      `archive: ${FILES} files, ${MB.toFixed(1)} MB unpacked, ${(packed / 1e6).toFixed(1)} MB gzipped (built in ${((performance.now() - built) / 1000).toFixed(1)} s)`,
    );

    const tar = await best(
      'tar',
      async (out) => {
        await run('tar', ['-xzf', tgz, '-C', out]);
      },
      root,
    );
    const mine = await best('ours', (out) => ours(tgz, out), root);

    // The same two without the disk: what the checks cost in CPU alone.
    const tarNoDisk = await best(
      'tar-stdout',
      async () => {
        await run('sh', ['-c', `tar -xzOf '${tgz}' > /dev/null`]);
      },
      root,
    );
    const mineNoDisk = await best(
      'ours-drain',
      async () => {
        await unpackArchive(createReadStream(tgz), async (_f, body) => {
          for await (const _chunk of body);
        });
      },
      root,
    );

    const line = (name: string, ms: number) =>
      console.log(`${name.padEnd(34)} ${ms.toFixed(0).padStart(6)} ms  ${(MB / (ms / 1000)).toFixed(0).padStart(5)} MB/s`);
    line('tar -xzf (to disk)', tar);
    line('unpackArchive (to disk)', mine);
    console.log(`ratio (ours / tar): ${(mine / tar).toFixed(2)}`);
    figure({ name: 'unpack', value: mine, unit: 'ms', baseline: tar });
    line('tar -xzOf > /dev/null (no disk)', tarNoDisk);
    line('unpackArchive, bodies drained', mineNoDisk);
    console.log(`ratio without the disk (ours / tar): ${(mineNoDisk / tarNoDisk).toFixed(2)}`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
