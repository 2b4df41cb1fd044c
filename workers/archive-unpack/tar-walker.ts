import { ArchiveRefusal, refuseEntry } from './archive-rules.js';

// A second, strict reader of the tar structure, fed the same unpacked bytes just before
// tar-stream. tar-stream yields the entries and their bodies; the walker checks what tar-stream
// lets pass (security.md §1) and gives each entry's header offset and size, which the caller
// compares with tar-stream's own: if the two ever read an archive differently, it is refused.
//
// - The first zero block ends the archive, as GNU tar and Python's tarfile read it. tar-stream
//   reads on, so anything but zeros after it is refused (`after-end`).
// - Checksums, the ustar/GNU magic and the size field are read strictly; a v7 header, a base-256
//   negative size or a size with junk in it is refused (`corrupt`, or `not-tar` on the first).
// - Pax records must be well formed (tar-stream stops silently at a bad one). No pax header may set
//   `size`: a file under 8 GiB never needs it, and a size that disagrees with the ustar one is how
//   entries are smuggled (GHSA-vmf3, node-tar). A global header may not set `path` or `linkpath`:
//   tar-stream ignores them unless a local header follows, POSIX applies them to every later entry.
//   An empty `path` (tar-stream skips it) and NUL in a record are refused; `GNU.sparse.*` keys
//   mark a sparse file, refused as `special`.
// - At most four metadata headers (x, g, L, K) may precede one entry, each at most 1 MiB.

const BLOCK = 512;
/** Metadata headers before one entry: GNU tar writes L and K, pax writers x and maybe g. */
const MAX_META_RUN = 4;
/** Bytes in one metadata header's data. A 1,024-byte path needs far less; tar-stream allows 4 MiB. */
const MAX_META_BYTES = 1024 * 1024;
const ZEROS = Buffer.alloc(64 * 1024);

const HEADER = 0;
const SKIP = 1;
const PAX = 2;
const END = 3;

/** tar-stream's type codes (typeflag − '0'; NUL is 0) that it reads as metadata, not entries. */
const GNU_LONG_LINK = 27; // K
const GNU_LONG_PATH = 28; // L
const GNU_OLD_LONG_PATH = 30; // N
const PAX_GLOBAL = 55; // g
const PAX_LOCAL = 72; // x

export interface WalkedEntry {
  /** Offset of the entry's own 512-byte header in the unpacked stream. */
  headerOffset: number;
  /** The ustar size field. */
  size: number;
  /** The typeflag byte, as a character (`0`, `5`, `2`, `V`, ...; NUL shows as `\0`). */
  typeflag: string;
}

export class TarWalker {
  /** Unpacked bytes seen. */
  offset = 0;
  /** Bytes that are not file content: headers, metadata, padding, zeros at the end. */
  overhead = 0;
  private state = HEADER;
  /** Bytes left to skip (SKIP) or to gather (PAX). */
  private remaining = 0;
  private padAfterPax = 0;
  private paxGlobal = false;
  private paxName = '';
  private paxParts: Buffer[] = [];
  private readonly block = Buffer.alloc(BLOCK);
  private blockFill = 0;
  private headers = 0;
  private metaRun = 0;
  private readonly entries: WalkedEntry[] = [];

  /** Reads the next unpacked bytes; throws ArchiveRefusal at the first thing it refuses. */
  push(chunk: Buffer): void {
    const base = this.offset;
    const n = chunk.length;
    let i = 0;
    while (i < n) {
      if (this.state === SKIP) {
        const take = Math.min(this.remaining, n - i);
        i += take;
        this.remaining -= take;
        if (this.remaining === 0) this.state = HEADER;
      } else if (this.state === HEADER) {
        let block: Buffer;
        if (this.blockFill === 0 && n - i >= BLOCK) {
          block = chunk.subarray(i, i + BLOCK);
          i += BLOCK;
        } else {
          const take = Math.min(BLOCK - this.blockFill, n - i);
          chunk.copy(this.block, this.blockFill, i, i + take);
          this.blockFill += take;
          i += take;
          if (this.blockFill < BLOCK) break;
          this.blockFill = 0;
          block = this.block;
        }
        this.header(block, base + i - BLOCK);
      } else if (this.state === PAX) {
        const take = Math.min(this.remaining, n - i);
        this.paxParts.push(Buffer.from(chunk.subarray(i, i + take)));
        i += take;
        this.remaining -= take;
        if (this.remaining === 0) this.endPax();
      } else {
        const at = firstNonZero(chunk, i, n);
        if (at !== -1) throw afterEnd(chunk, at, base + at);
        this.overhead += n - i;
        i = n;
      }
    }
    this.offset = base + n;
  }

  /** The stream has ended: refuses an archive cut short or left with metadata and no entry. */
  finish(): void {
    if (this.headers === 0 && this.state !== END) {
      throw new ArchiveRefusal(
        'not-tar',
        null,
        this.offset === 0 ? 'the gzip holds no data' : 'the gzip holds something other than a tar archive',
      );
    }
    if (this.state === SKIP || this.state === PAX) {
      throw new ArchiveRefusal('corrupt', null, `the tar archive ends in the middle of an entry, after ${this.offset} bytes`);
    }
    if (this.offset % BLOCK !== 0) {
      throw new ArchiveRefusal('corrupt', null, `the tar archive ends partway through a block, after ${this.offset} bytes`);
    }
    if (this.state === END) return;
    if (this.metaRun > 0) throw new ArchiveRefusal('corrupt', null, 'the tar archive ends with metadata headers and no entry');
  }

  /** The oldest entry read but not yet taken, in archive order. */
  nextEntry(): WalkedEntry | undefined {
    return this.entries.shift();
  }

  private header(block: Buffer, at: number): void {
    this.overhead += BLOCK;
    if (firstNonZero(block, 0, BLOCK) === -1) {
      if (this.metaRun > 0)
        throw new ArchiveRefusal('corrupt', null, `metadata headers are followed by the end of the archive at byte ${at}`);
      this.state = END;
      return;
    }
    const first = this.headers++ === 0;
    const damaged = (why: string) =>
      first
        ? new ArchiveRefusal('not-tar', null, `the gzip holds something other than a tar archive (${why})`)
        : new ArchiveRefusal('corrupt', null, `the tar header at byte ${at} is damaged: ${why}`);

    const stored = readOctal(block, 148, 8);
    if (stored === null || stored !== checksum(block)) throw damaged('its checksum does not match');
    if (!isUstar(block) && !isGnu(block)) throw damaged('it is not a ustar, pax or GNU header');
    const size = readSize(block);
    if (size === null) throw damaged('its size field is unreadable');

    const flag = block[156];
    const code = flag === 0 ? 0 : flag - 48;
    const padding = (BLOCK - (size % BLOCK)) % BLOCK;
    if (code === PAX_LOCAL || code === PAX_GLOBAL || code === GNU_LONG_PATH || code === GNU_LONG_LINK || code === GNU_OLD_LONG_PATH) {
      if (++this.metaRun > MAX_META_RUN) {
        throw new ArchiveRefusal('metadata', null, `more than ${MAX_META_RUN} metadata headers precede one entry, at byte ${at}`);
      }
      if (size > MAX_META_BYTES) {
        throw new ArchiveRefusal(
          'metadata',
          null,
          `a metadata header at byte ${at} declares ${size} bytes, over the ${MAX_META_BYTES} allowed`,
        );
      }
      this.overhead += size + padding;
      if (code === PAX_LOCAL || code === PAX_GLOBAL) {
        this.state = PAX;
        this.remaining = size;
        this.padAfterPax = padding;
        this.paxGlobal = code === PAX_GLOBAL;
        this.paxName = ustarName(block);
        if (size === 0) this.endPax();
      } else {
        this.skip(size + padding);
      }
      return;
    }

    this.metaRun = 0;
    this.entries.push({ headerOffset: at, size, typeflag: String.fromCharCode(flag) });
    // A folder's data, if any, is skipped as GNU tar does; the caller refuses such a folder.
    this.overhead += code === 5 ? size + padding : padding;
    this.skip(size + padding);
  }

  private skip(bytes: number): void {
    this.remaining = bytes;
    this.state = bytes === 0 ? HEADER : SKIP;
  }

  private endPax(): void {
    const data = Buffer.concat(this.paxParts);
    this.paxParts = [];
    for (const [key, value] of readPax(data, this.paxName)) {
      if (key.includes('\0') || value.includes('\0')) {
        throw refuseEntry('control', this.paxName, `a pax record (${key.replace(/\0/g, '\\0')}) may not contain NUL`);
      }
      if (key === 'size') throw refuseEntry('pax', this.paxName, "a pax header may not override an entry's size");
      if (key.startsWith('GNU.sparse.')) throw refuseEntry('special', this.paxName, 'sparse files are not accepted');
      // tar-stream skips an empty path and keeps the ustar name; other readers take it as given.
      if (key === 'path' && value === '') throw refuseEntry('pax', this.paxName, 'a pax path may not be empty');
      if (this.paxGlobal && (key === 'path' || key === 'linkpath')) {
        throw refuseEntry('pax', this.paxName, `a global pax header may not set ${key}`);
      }
    }
    this.skip(this.padAfterPax);
  }
}

/** Pax records, `<length> <key>=<value>\n`, the length counting every byte of the record. */
function readPax(data: Buffer, name: string): [string, string][] {
  const records: [string, string][] = [];
  const bad = (why: string) => refuseEntry('pax', name, `a pax header is malformed: ${why}`);
  let at = 0;
  while (at < data.length) {
    // Some writers pad the data with NULs; tar-stream stops there too.
    if (data[at] === 0) {
      if (firstNonZero(data, at, data.length) !== -1) throw bad('data follows NUL padding');
      break;
    }
    let digits = at;
    let length = 0;
    while (digits < data.length && data[digits] >= 48 && data[digits] <= 57 && digits - at < 10) {
      length = length * 10 + data[digits] - 48;
      digits++;
    }
    if (digits === at || data[digits] !== 0x20) throw bad(`no record length at byte ${at}`);
    if (length <= digits - at + 1 || at + length > data.length) throw bad(`a record length of ${length} does not fit`);
    if (data[at + length - 1] !== 0x0a) throw bad(`the record at byte ${at} does not end with a newline`);
    const record = data.subarray(digits + 1, at + length - 1);
    const equals = record.indexOf(0x3d);
    if (equals <= 0) throw bad(`the record at byte ${at} has no key`);
    records.push([record.toString('utf8', 0, equals), record.toString('utf8', equals + 1)]);
    at += length;
  }
  return records;
}

function afterEnd(chunk: Buffer, at: number, offset: number): ArchiveRefusal {
  const blockStart = at - (offset % BLOCK);
  if (blockStart >= 0 && blockStart + BLOCK <= chunk.length && offset % BLOCK < 100) {
    const name = ustarName(chunk.subarray(blockStart, blockStart + BLOCK));
    if (name) return refuseEntry('after-end', name, `an entry follows the end-of-archive marker, at byte ${offset - (offset % BLOCK)}`);
  }
  return new ArchiveRefusal('after-end', null, `data follows the end-of-archive marker, at byte ${offset}`);
}

/** Index of the first non-zero byte of buf[from, to), or -1. */
function firstNonZero(buf: Buffer, from: number, to: number): number {
  for (let at = from; at < to; at += ZEROS.length) {
    const end = Math.min(at + ZEROS.length, to);
    if (ZEROS.compare(buf, at, end, 0, end - at) !== 0) {
      for (let i = at; i < end; i++) if (buf[i] !== 0) return i;
    }
  }
  return -1;
}

/** Sum of the header's bytes with the checksum field counted as eight spaces. */
function checksum(block: Buffer): number {
  let sum = 8 * 32;
  for (let i = 0; i < 148; i++) sum += block[i];
  for (let i = 156; i < BLOCK; i++) sum += block[i];
  return sum;
}

function isUstar(block: Buffer): boolean {
  return block.toString('latin1', 257, 263) === 'ustar\0';
}

function isGnu(block: Buffer): boolean {
  return block.toString('latin1', 257, 265) === 'ustar  \0';
}

/** The name field, with the ustar prefix when the header has one; for messages only. */
function ustarName(block: Buffer): string {
  const field = (from: number, length: number) => {
    const end = block.indexOf(0, from);
    return block.toString('utf8', from, end === -1 || end > from + length ? from + length : end);
  };
  const name = field(0, 100);
  return isUstar(block) && block[345] !== 0 ? `${field(345, 155)}/${name}` : name;
}

/** Octal digits between optional leading blanks and trailing spaces or NULs; anything else is null. */
function readOctal(block: Buffer, from: number, length: number): number | null {
  const end = from + length;
  let at = from;
  while (at < end && (block[at] === 0x20 || block[at] === 0)) at++;
  let value = 0;
  for (; at < end && block[at] >= 0x30 && block[at] <= 0x37; at++) value = value * 8 + block[at] - 0x30;
  for (; at < end; at++) if (block[at] !== 0x20 && block[at] !== 0) return null;
  return value;
}

/** The size field: octal, or base-256 when its first byte is 0x80 (negative 0xFF is refused). */
function readSize(block: Buffer): number | null {
  if ((block[124] & 0x80) === 0) return readOctal(block, 124, 12);
  if (block[124] !== 0x80) return null;
  let value = 0;
  for (let i = 125; i < 136; i++) value = value * 256 + block[i];
  return Number.isSafeInteger(value) ? value : null;
}
