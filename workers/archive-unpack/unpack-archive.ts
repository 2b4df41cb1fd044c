import { pipeline, Readable, Writable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import { ArchiveRefusal, quote, refuseEntry, withLimits, type ArchiveLimits } from './archive-rules.js';
import { EntryIndex } from './entry-index.js';
import { checkEntryPath, type EntryKind } from './entry-path.js';
import { gzipError, gzipGate } from './gzip-gate.js';
import { TarWalker, type WalkedEntry } from './tar-walker.js';

export { ArchiveRefusal, archiveRules, type ArchiveLimits, type ArchiveRule } from './archive-rules.js';

// A static build's gzipped tar, checked and unpacked in one pass with no I/O of its own:
//
//   source → gate (gzip magic, packed bytes) → gunzip → sink (TarWalker, byte caps) → tar-stream
//   tar-stream entry → type, path, name-collision and size checks → writeFile(file, body)
//
// The first refusal destroys every stream, including the body of any file still being written,
// and the returned promise settles only once every writeFile call has settled, so a caller that
// deletes what was written after a refusal races nothing. To bound wall time, destroy `source`.

export interface ArchiveFile {
  /** Normalised path inside the build: `assets/app.js`, never `./`, `/` or `..`. */
  path: string;
  /** Bytes. */
  size: number;
}

export type WriteFile = (file: ArchiveFile, body: Readable) => Promise<void>;

const MiB = 1024 * 1024;
/** Stream chunk size, bytes: big enough that per-chunk work does not show in the time. */
const CHUNK = 64 * 1024;
/** The ratio guard waits for this many unpacked bytes: a small archive can be all zeros. */
const RATIO_FLOOR = 16 * MiB;
/** writeFile calls running at once: each holds at most one chunk of its body unread. */
const WRITES_IN_FLIGHT = 8;

/** The fields of a tar-stream header this module reads (its typings lack byteOffset and null types). */
interface TarHeader {
  name: string;
  size: number;
  type: string | null;
  linkname: string | null;
  byteOffset: number;
}

/** The body stream tar-stream gives each entry (a streamx Readable). */
interface EntryStream {
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  pause(): unknown;
  resume(): unknown;
}

/** Checks a gzipped tar as it streams and hands each regular file's bytes to `writeFile`, in order. */
export async function unpackArchive(
  source: Readable,
  writeFile: WriteFile,
  limits: Partial<ArchiveLimits> = {},
): Promise<{ files: ArchiveFile[]; totalBytes: number }> {
  return new Unpacking(source, writeFile, withLimits(limits)).result;
}

class Unpacking {
  readonly result: Promise<{ files: ArchiveFile[]; totalBytes: number }>;
  private resolve!: (value: { files: ArchiveFile[]; totalBytes: number }) => void;
  private reject!: (err: Error) => void;

  private readonly walker = new TarWalker();
  private readonly index: EntryIndex;
  private readonly extract = tar.extract();
  private readonly sink: Writable;
  private readonly files: ArchiveFile[] = [];
  /** Packed bytes read from the source. */
  private packedBytes = 0;
  /** File content bytes that have passed to writeFile bodies. */
  private streamedBytes = 0;
  /** Sum of the sizes of files accepted so far, as their headers declare them. */
  private declaredBytes = 0;
  /** Bytes of headers and padding the archive may hold besides its content. */
  private readonly overheadAllowance: number;
  private readonly writes = new Set<Promise<void>>();
  private readonly bodies = new Set<Readable>();
  private stopFeeding: (() => void) | null = null;
  private failure: Error | null = null;
  private streamsDone = false;
  private settled = false;

  constructor(
    source: Readable,
    private readonly writeFile: WriteFile,
    private readonly limits: ArchiveLimits,
  ) {
    this.result = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.index = new EntryIndex(limits.maxFiles);
    // Per file: a header, padding, and maybe a pax or GNU long-name header (~2 KiB); folders on top.
    this.overheadAllowance = 16 * MiB + 2048 * limits.maxFiles;

    this.sink = new Writable({
      highWaterMark: CHUNK,
      write: (chunk: Buffer, _encoding, done) => this.unpacked(chunk, done),
      final: (done) => this.unpackedAll(done),
    });
    this.extract.on('entry', (header, stream, next) => {
      // A refusal destroys the entry's stream with an error, even one never read: listen first.
      stream.on('error', (err: Error) => this.fail(parserError(err)));
      this.entry(header as unknown as TarHeader, stream as unknown as EntryStream, next).catch((err: Error) => this.fail(err));
    });
    this.extract.on('error', (err: Error) => this.fail(parserError(err)));

    const gate = gzipGate(CHUNK, (bytes) => {
      this.packedBytes += bytes;
    });
    pipeline(source, gate, createGunzip({ chunkSize: CHUNK }), this.sink, (err) => {
      if (err) return this.fail(gzipError(err));
      this.streamsDone = true;
      this.settle();
    });
  }

  /** Unpacked bytes: the walker reads them, the caps are checked, then tar-stream parses them. */
  private unpacked(chunk: Buffer, done: (err?: Error | null) => void): void {
    try {
      this.walker.push(chunk);
      this.checkUnpackedBytes();
    } catch (err) {
      return done(err as Error);
    }
    if (this.extract.write(chunk)) return done();
    this.extract.once('drain', () => done());
  }

  private unpackedAll(done: (err?: Error | null) => void): void {
    try {
      this.walker.finish();
    } catch (err) {
      return done(err as Error);
    }
    this.extract.once('finish', () => done());
    this.extract.end(undefined);
  }

  private checkUnpackedBytes(): void {
    const { offset: unpacked, overhead } = this.walker;
    if (overhead > this.overheadAllowance) {
      throw new ArchiveRefusal('too-large', null, `the archive holds more than ${this.overheadAllowance} bytes of tar headers and padding`);
    }
    if (unpacked > this.limits.maxTotalBytes + this.overheadAllowance) {
      throw new ArchiveRefusal('too-large', null, `the archive unpacks to more than ${this.limits.maxTotalBytes} bytes`);
    }
    const maxRatio = this.limits.maxRatio ?? Infinity;
    if (unpacked > RATIO_FLOOR && unpacked > maxRatio * this.packedBytes) {
      throw new ArchiveRefusal(
        'ratio',
        null,
        `the archive unpacks to over ${maxRatio} times its packed size (${unpacked} bytes from ${this.packedBytes})`,
      );
    }
  }

  private async entry(header: TarHeader, stream: EntryStream, next: () => void): Promise<void> {
    if (this.failure) return;
    const walked = this.walker.nextEntry();
    if (!walked || walked.headerOffset !== header.byteOffset - 512 || walked.size !== header.size) {
      throw new ArchiveRefusal(
        'corrupt',
        header.name,
        `${quote(header.name)}: the tar archive reads two ways at byte ${header.byteOffset - 512}`,
      );
    }
    const name = header.name;
    const kind = entryKind(header, walked);
    if (kind === 'directory') {
      // tar-stream never ends a folder's body when it has one, and reads the data as headers.
      if (header.size !== 0) throw refuseEntry('dir-data', name, `a folder may not carry data (${header.size} bytes)`);
      const path = checkEntryPath(name, 'directory', this.limits);
      if (path !== '') this.index.addFolder(path, name);
      return next();
    }

    const path = checkEntryPath(name, 'file', this.limits);
    if (this.index.fileCount >= this.limits.maxFiles) {
      throw refuseEntry('too-many-files', name, `an archive may hold at most ${this.limits.maxFiles} files`);
    }
    if (header.size > this.limits.maxFileBytes) {
      throw refuseEntry('file-too-large', name, `a file may be at most ${this.limits.maxFileBytes} bytes, not ${header.size}`);
    }
    if (this.declaredBytes + header.size > this.limits.maxTotalBytes) {
      throw refuseEntry(
        'too-large',
        name,
        `the files may hold at most ${this.limits.maxTotalBytes} bytes in all, and this one passes that`,
      );
    }
    this.index.addFile(path, name);
    this.declaredBytes += header.size;

    while (this.writes.size >= WRITES_IN_FLIGHT) await Promise.race(this.writes);
    if (this.failure) return;
    const file = { path, size: header.size };
    this.files.push(file);
    const fed = this.feed(file, name, stream);
    if (await fed) next();
  }

  /**
   * Passes one entry's bytes to writeFile through a Node stream, counting them. Resolves true once
   * every byte has gone into the body, false if the unpacking failed or the body was closed first.
   */
  private feed(file: ArchiveFile, name: string, stream: EntryStream): Promise<boolean> {
    const body = new Readable({ highWaterMark: CHUNK, read: () => stream.resume() });
    // A refusal destroys the body with an error; a writer that stopped listening must not crash
    // the process for it.
    body.on('error', () => {});
    this.bodies.add(body);

    let fileBytes = 0;
    const fed = new Promise<boolean>((resolve) => {
      this.stopFeeding = () => resolve(false);
      stream.on('data', (chunk: Buffer) => {
        fileBytes += chunk.length;
        this.streamedBytes += chunk.length;
        // tar-stream hands over exactly the declared size, already checked; these guard against it not.
        if (fileBytes > file.size || fileBytes > this.limits.maxFileBytes) {
          return this.fail(refuseEntry('file-too-large', name, `the file holds more bytes than its header says (${file.size})`));
        }
        if (this.streamedBytes > this.limits.maxTotalBytes) {
          return this.fail(refuseEntry('too-large', name, `the files hold more than ${this.limits.maxTotalBytes} bytes in all`));
        }
        if (!body.push(chunk)) stream.pause();
      });
      stream.on('end', () => {
        body.push(null);
        resolve(true);
      });
      body.on('close', () => {
        this.bodies.delete(body);
        if (!body.readableEnded) resolve(false);
      });
    }).finally(() => {
      this.stopFeeding = null;
    });

    let written: Promise<void>;
    try {
      written = Promise.resolve(this.writeFile(file, body));
    } catch (err) {
      written = Promise.reject(err);
    }
    const settledWrite: Promise<void> = written
      .then(
        () => {
          if (!body.readableEnded) this.fail(new Error(`writeFile settled before reading all of ${quote(file.path)}`));
        },
        (err: unknown) => this.fail(err instanceof Error ? err : new Error(String(err))),
      )
      .finally(() => {
        this.writes.delete(settledWrite);
        this.settle();
      });
    this.writes.add(settledWrite);
    return fed;
  }

  private fail(err: Error): void {
    if (this.failure || this.settled) return;
    this.failure = err;
    for (const body of this.bodies) body.destroy(err);
    this.stopFeeding?.();
    this.extract.destroy(err);
    this.sink.destroy(err);
    this.settle();
  }

  private settle(): void {
    if (this.settled || this.writes.size > 0) return;
    if (this.failure) {
      this.settled = true;
      return this.reject(this.failure);
    }
    if (!this.streamsDone) return;
    this.settled = true;
    if (!this.index.has('index.html')) {
      return this.reject(new ArchiveRefusal('no-index', null, 'the archive has no index.html at its root'));
    }
    this.resolve({ files: this.files, totalBytes: this.streamedBytes });
  }
}

function entryKind(header: TarHeader, walked: WalkedEntry): EntryKind {
  const name = header.name;
  switch (header.type) {
    case 'file':
      return 'file';
    case 'directory':
      return 'directory';
    case 'symlink':
      throw refuseEntry('link', name, `symbolic links are not accepted (this one points to ${quote(header.linkname ?? '')})`);
    case 'link':
      throw refuseEntry('link', name, `hard links are not accepted (this one points to ${quote(header.linkname ?? '')})`);
    case 'character-device':
    case 'block-device':
    case 'fifo':
    case 'contiguous-file':
      throw refuseEntry('special', name, `only files and folders are accepted, not a ${header.type.replace('-', ' ')}`);
    default:
      throw refuseEntry('special', name, `only files and folders are accepted, not entries of type ${JSON.stringify(walked.typeflag)}`);
  }
}

/** tar-stream's own errors ("Invalid header", "Unexpected end of data", ...) are refusals too. */
function parserError(err: Error): Error {
  if (err instanceof ArchiveRefusal) return err;
  return new ArchiveRefusal('corrupt', null, `the tar archive is damaged (${err.message})`);
}
