import type { Finding } from './findings.js';
import type { SecretScanner } from './secret-scan.js';
import { walkFiles } from './walk-files.js';

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
): Promise<FolderScan> {
  const out: FolderScan = { files: 0, binary: 0, findings: [] };
  for await (const file of walkFiles(root)) {
    const found = await scanner.scanFile(file, where(file.rel));
    if (found === null) {
      out.binary++;
      continue;
    }
    out.files++;
    out.findings.push(...found.filter((finding) => !ignore?.(finding, file.rel)));
  }
  return out;
}
