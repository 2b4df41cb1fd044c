import type { Finding } from './findings.js';
import type { SecretScanner } from './secret-scan.js';
import { eachAtMost } from '../each-at-most.js';
import { walkFiles, type FileEntry } from './walk-files.js';

/** Files read and scanned at once: enough to keep the scan thread busy, few texts held at a time. */
const FILES_AT_ONCE = 8;

export interface FolderScan {
  /** Text files read. */
  files: number;
  /** Binary files passed over. */
  binary: number;
  findings: Finding[];
}

/**
 * Scans every text file under a folder (not .git nor node_modules). `where` prefixes each file's
 * path in the findings, so a file of the output reads `dist/app.js`. `ignore` drops findings a
 * later scan owns (run.env values in pitch.json belong to the start environment's scan).
 */
export async function scanFolder(
  scanner: SecretScanner,
  root: string,
  where: (rel: string) => string,
  ignore?: (finding: Finding, rel: string) => boolean,
  /** Once aborted, no further file is read (those being scanned end): the scan's answer is then incomplete. */
  signal?: AbortSignal,
): Promise<FolderScan> {
  const files: FileEntry[] = [];
  for await (const file of walkFiles(root)) files.push(file);
  // Several files at once: each is a few reads and a round trip to the scan thread, so the next
  // file is read while one is linted rather than after it.
  const found: (Finding[] | null)[] = new Array(files.length);
  await eachAtMost(
    FILES_AT_ONCE,
    files.map((file, index) => async () => {
      if (!signal?.aborted) found[index] = await scanner.scanFile(file, where(file.rel));
    }),
  );
  const out: FolderScan = { files: 0, binary: 0, findings: [] };
  files.forEach((file, index) => {
    const hits = found[index];
    if (hits === undefined) return;
    if (hits === null) {
      out.binary++;
      return;
    }
    out.files++;
    out.findings.push(...hits.filter((finding) => !ignore?.(finding, file.rel)));
  });
  return out;
}
