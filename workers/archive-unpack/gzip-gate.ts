import { Transform } from 'node:stream';
import { ArchiveRefusal } from './archive-rules.js';

// The gzip layer's part of the checks: only a gzip stream gets to zlib (a plain tar, zip, bzip2,
// xz or zstd upload is named in the refusal), and zlib's own errors (bad CRC, bad length, a cut
// upload, garbage after a member) become refusals. Trailing NULs after a member and a second
// member are accepted, as gzip -d accepts them.

/** Lets only gzip through (by its magic bytes) and counts the packed bytes for the ratio guard. */
export function gzipGate(chunkSize: number, onBytes: (bytes: number) => void): Transform {
  let head: Buffer | null = Buffer.alloc(0);
  return new Transform({
    highWaterMark: chunkSize,
    transform(chunk: Buffer, _encoding, done) {
      onBytes(chunk.length);
      if (head === null) return done(null, chunk);
      head = Buffer.concat([head, chunk]);
      if (head.length < 2) return done();
      if (head[0] !== 0x1f || head[1] !== 0x8b) return done(notGzip(head));
      const first = head;
      head = null;
      done(null, first);
    },
    flush(done) {
      done(head === null ? null : notGzip(head));
    },
  });
}

function notGzip(head: Buffer): ArchiveRefusal {
  const starts = (...bytes: number[]) => bytes.every((b, i) => head[i] === b);
  const what =
    head.length === 0
      ? 'it is empty'
      : head.toString('latin1', 257, 262) === 'ustar'
        ? 'it is a plain tar: gzip it (tar -czf)'
        : starts(0x50, 0x4b)
          ? 'it is a zip archive'
          : starts(0x42, 0x5a, 0x68)
            ? 'it is bzip2-compressed'
            : starts(0xfd, 0x37, 0x7a, 0x58, 0x5a)
              ? 'it is xz-compressed'
              : starts(0x28, 0xb5, 0x2f, 0xfd)
                ? 'it is zstd-compressed'
                : 'it does not start like gzip';
  return new ArchiveRefusal('not-gzip', null, `the upload is not a gzipped tar: ${what}`);
}

/** zlib's errors mean a damaged gzip; anything else (the source failing) is not the archive's fault. */
export function gzipError(err: Error): Error {
  if (err instanceof ArchiveRefusal) return err;
  const code = (err as NodeJS.ErrnoException).code;
  if (typeof code === 'string' && code.startsWith('Z_')) {
    const why = code === 'Z_BUF_ERROR' ? 'it ends early' : err.message;
    return new ArchiveRefusal('corrupt', null, `the gzip stream is damaged: ${why}`);
  }
  return err;
}
