import { defaultLimits, refuseEntry, type ArchiveLimits } from './archive-rules.js';

// One entry's path, judged alone. Every name is checked as the parser handed it over, after pax
// `path` and GNU long names were applied, and before anything is written. The result is the only
// spelling the store ever sees, so a name that could be read two ways is refused, not repaired.

export type EntryKind = 'file' | 'directory';

/**
 * C0 and C1 controls (NUL, newline, DEL, ...), the line and paragraph separators, and the
 * bidirectional marks and overrides that make a name display as another (U+061C, U+200E/F,
 * U+202A-E, U+2066-9).
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** A drive letter: `C:x`, `C:/x`, `c:..` are absolute or drive-relative on Windows. */
const DRIVE = /^[A-Za-z]:/;
/** Longest segment most file systems and object stores accept, in UTF-8 bytes. */
const MAX_SEGMENT_BYTES = 255;

/**
 * The normalised path of an entry (`./a/b/` → `a/b`), or an ArchiveRefusal. The archive root
 * itself (`.` or `./` as a folder, as `tar -C dist .` writes it) gives the empty string.
 */
export function checkEntryPath(
  name: string,
  kind: EntryKind,
  limits: Pick<ArchiveLimits, 'maxDepth' | 'maxPathBytes'> = defaultLimits,
): string {
  if (name === '') throw refuseEntry('empty', name, 'an entry must have a name');
  const control = CONTROL.exec(name);
  if (control) {
    const code = control[0].codePointAt(0)!.toString(16).padStart(4, '0');
    throw refuseEntry('control', name, `a path may not contain a control character (U+${code.toUpperCase()})`);
  }
  // Names are decoded as UTF-8; bytes that are not come out as U+FFFD, and two such names would
  // collapse into one.
  if (name.includes('\ufffd')) throw refuseEntry('encoding', name, 'a path must be valid UTF-8');
  if (name.includes('\\')) throw refuseEntry('backslash', name, 'a path may not contain a backslash');
  if (name.startsWith('/')) throw refuseEntry('absolute', name, 'a path may not start at the root');
  if (DRIVE.test(name)) throw refuseEntry('absolute', name, 'a path may not name a drive');
  if (name.includes(':')) throw refuseEntry('colon', name, 'a path may not contain a colon');

  const segments = name.split('/');
  if (segments.includes('..')) throw refuseEntry('climb', name, 'a path may not climb out with ..');

  // A folder may end in one slash; a file may not.
  if (segments.at(-1) === '') {
    if (kind === 'file') throw refuseEntry('empty', name, 'a file name may not end with /');
    segments.pop();
  }
  // Leading `./` is how `tar -C dir .` spells every name.
  let first = 0;
  while (first < segments.length && segments[first] === '.') first++;
  const kept = segments.slice(first);
  if (kept.length === 0) {
    if (kind === 'directory') return '';
    throw refuseEntry('empty', name, 'a file must have a name');
  }
  if (kept.includes('')) throw refuseEntry('empty', name, 'a path may not contain an empty segment (//)');
  if (kept.includes('.')) throw refuseEntry('dot', name, 'a path may not contain a . segment past its start');

  if (kept.length > limits.maxDepth) {
    throw refuseEntry('depth', name, `a path may be at most ${limits.maxDepth} levels deep, not ${kept.length}`);
  }
  const path = kept.join('/');
  const bytes = Buffer.byteLength(path);
  if (bytes > limits.maxPathBytes) {
    throw refuseEntry('path-too-long', name, `a path may be at most ${limits.maxPathBytes} bytes, not ${bytes}`);
  }
  for (const segment of kept) {
    if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES) {
      throw refuseEntry('path-too-long', name, `a file or folder name may be at most ${MAX_SEGMENT_BYTES} bytes`);
    }
  }
  return path;
}

const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * The key two paths collide on when a file system or a browser could take them for one:
 * compatibility-normalised (NFKC: `ﬀ` → `ff`, `ſ` → `s`, NFD `é` → NFC `é`), then case-folded
 * through upper case (`ß` → `SS` → `ss`, `K` Kelvin → `k`), with invisible code points dropped.
 * It errs on the side of colliding: a false alarm costs a rename, a miss an ambiguity.
 */
export function foldPath(path: string): string {
  return path.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC').replace(IGNORABLE, '');
}
