import { availableParallelism } from 'node:os';
import { Transform, type TransformCallback } from 'node:stream';
import { promisify } from 'node:util';
import { deflateRawSync, gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);

/** Bytes in each gzip member: large enough that a member's own 32 kB window costs nothing. */
const CHUNK_BYTES = 1 << 20;
const SAMPLE_BYTES = 16 * 1024;

/**
 * Whether a chunk is worth deflating: four slices across it are tried at level 1. Images, fonts
 * and media are compressed already, and deflate spends most of a site's packing time on them for
 * nothing; they are stored (level 0) instead.
 */
function compressible(chunk: Buffer): boolean {
  let packed = 0;
  let raw = 0;
  for (let i = 0; i < 4; i++) {
    const at = Math.floor((chunk.length - SAMPLE_BYTES) * (i / 3));
    const slice = chunk.subarray(Math.max(0, at), Math.max(0, at) + SAMPLE_BYTES);
    raw += slice.length;
    packed += deflateRawSync(slice, { level: 1 }).length;
  }
  return packed < raw * 0.95;
}

/**
 * gzip as pigz does it: the stream is cut into 1 MiB pieces, each deflated on its own (zlib's
 * work runs on libuv's thread pool, so several at once) and written in order as consecutive gzip
 * members. A file of several members is one gzip stream to every reader (RFC 1952 2.2; gunzip,
 * Node's zlib, the platform's unpack and bundle readers), and unpacks to the same bytes.
 */
export function parallelGzip(level: number, parallel = Math.max(2, availableParallelism())): Transform {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const inFlight: Promise<Buffer>[] = [];

  const cut = (): void => {
    const chunk = Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    const member = gzipAsync(chunk, { level: compressible(chunk) ? level : 0 });
    // Awaited in order below; this only keeps a later member's failure from going unhandled meanwhile.
    member.catch(() => {});
    inFlight.push(member);
  };

  return new Transform({
    transform(this: Transform, data: Buffer, _encoding, done: TransformCallback) {
      pending.push(data);
      pendingBytes += data.length;
      if (pendingBytes >= CHUNK_BYTES) cut();
      // Hold the writer back while the pool is full: memory stays near parallel × 1 MiB.
      void (async () => {
        while (inFlight.length >= parallel) this.push(await inFlight.shift()!);
      })().then(() => done(), done);
    },
    flush(this: Transform, done: TransformCallback) {
      if (pendingBytes > 0 || inFlight.length === 0) cut();
      void (async () => {
        while (inFlight.length > 0) this.push(await inFlight.shift()!);
      })().then(() => done(), done);
    },
  });
}
