// The limits a static build's archive is held to (spec 8: "at most 5,000 files; 32 MB per file;
// 256 MB unpacked; files and folders only") and the refusal every check throws. The rule codes are
// stable: tests, logs and the job's detail text rely on them. docs/decisions/archives.md lists them.

export interface ArchiveLimits {
  /** Regular files, at most. Folders are counted apart, against the same number. */
  maxFiles: number;
  /** Bytes in one file, at most. */
  maxFileBytes: number;
  /** Bytes of file content in the whole archive, at most. */
  maxTotalBytes: number;
  /** Path segments (folders + the file name), at most. */
  maxDepth: number;
  /** UTF-8 bytes in one normalised path, at most. Each segment is also held to 255 bytes. */
  maxPathBytes: number;
  /**
   * Unpacked bytes per gzipped byte, at most, judged once 16 MiB has been unpacked. DEFLATE tops
   * out near 1030:1; real sites stay well under 50:1. Infinity switches the guard off.
   */
  maxRatio?: number;
}

const MiB = 1024 * 1024;

export const defaultLimits: ArchiveLimits = {
  maxFiles: 5_000,
  maxFileBytes: 32 * MiB, // 33,554,432
  maxTotalBytes: 256 * MiB, // 268,435,456
  maxDepth: 32,
  maxPathBytes: 1_024,
  maxRatio: 200,
};

/**
 * The defaults with the caller's overrides laid over them. A key given as undefined keeps its
 * default (a config value left unset must never switch a limit off); a limit that is not a
 * positive number is a programming error.
 */
export function withLimits(overrides: Partial<ArchiveLimits>): ArchiveLimits {
  const limits = { ...defaultLimits };
  for (const [key, value] of Object.entries(overrides) as [keyof ArchiveLimits, number | undefined][]) {
    if (value === undefined) continue;
    if (typeof value !== 'number' || !(value > 0)) throw new TypeError(`archive limit ${key} must be a positive number, not ${value}`);
    limits[key] = value;
  }
  return limits;
}

/** Every rule an ArchiveRefusal can carry, and what it refuses. */
export const archiveRules = {
  'not-gzip': 'the upload does not start like gzip (a plain tar, zip, bzip2, xz, zstd, empty)',
  corrupt: 'damaged gzip (CRC, length, cut short, trailing garbage) or tar (checksum, v7 header, size field, cut short)',
  'not-tar': 'the gzip holds something other than a tar',
  'after-end': 'anything but zeros after the first zero block, which ends the archive',
  metadata: 'over 4 metadata headers before one entry, or one over 1 MB',
  pax: 'a malformed pax record, a pax size override, a global pax path',
  link: 'a symbolic or hard link',
  special: 'a device, FIFO, contiguous or sparse file, or an unknown entry type',
  'dir-data': 'a folder entry carrying data',
  empty: 'an empty name or segment (`a//b`), or a file name ending in `/`',
  dot: 'a `.` segment past the start (`a/./b`)',
  climb: 'a `..` segment',
  absolute: 'a path from the root (`/x`, `//x`) or naming a drive (`C:x`)',
  backslash: 'a `\\` anywhere',
  colon: 'a `:` anywhere (NTFS streams)',
  control: 'a control or bidirectional-override character, or NUL in a pax record',
  encoding: 'a name that is not UTF-8',
  depth: 'more than maxDepth segments',
  'path-too-long': 'a path over maxPathBytes or a segment over 255 bytes',
  duplicate: 'two entries at one path once case and Unicode forms are folded',
  conflict: 'one name used as a file and as a folder',
  'too-many-files': 'more than maxFiles files, or as many folders',
  'file-too-large': 'a file over maxFileBytes',
  'too-large': 'files over maxTotalBytes in all, or too many bytes of headers and padding',
  ratio: 'over maxRatio unpacked bytes per packed byte, past 16 MB',
  'no-index': 'no index.html at the root',
} as const;

export type ArchiveRule = keyof typeof archiveRules;

/** An archive refused on its merits: the job answers `422 refused: archive` with `detail`. */
export class ArchiveRefusal extends Error {
  override readonly name = 'ArchiveRefusal';
  /** A stable short code, one of archiveRules: `link`, `climb`, `too-large`, ... */
  readonly rule: ArchiveRule;
  /** The entry's path as the archive spelt it (shortened past 256 characters), or null. */
  readonly entry: string | null;
  /** One sentence a person can read, naming the entry and the rule. */
  readonly detail: string;

  constructor(rule: ArchiveRule, entry: string | null, detail: string) {
    super(detail);
    this.rule = rule;
    this.entry = entry === null ? null : shorten(entry, 256);
    this.detail = detail;
  }
}

/** A refusal about one entry: its detail reads `"a/../b": a path may not climb out with ..`. */
export function refuseEntry(rule: ArchiveRule, entry: string, why: string): ArchiveRefusal {
  return new ArchiveRefusal(rule, entry, `${quote(entry)}: ${why}`);
}

/** An entry name fit for a sentence: JSON-quoted, so control characters show as escapes. */
export function quote(name: string): string {
  return JSON.stringify(shorten(name, 120));
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}
