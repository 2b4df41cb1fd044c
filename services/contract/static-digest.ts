import { createHash } from 'node:crypto';

/**
 * A static build's identity by content (Build.digest, issue 29): the sha256 of its files' paths
 * and contents, whatever the archive's order, times or compression. `pitch deploy` works it out
 * while it packs the output, the unpack worker while it stores the files; the same files give the
 * same digest on both sides, so an unchanged site need not be uploaded again.
 */
export class StaticDigest {
  private readonly files: { path: string; sha256: string }[] = [];

  /** A file of the build: its path as the archive names it (`assets/app.js`) and its content's sha256 (hex). */
  add(path: string, sha256: string): void {
    this.files.push({ path, sha256 });
  }

  /** `sha256:` and the hex digest of one line a file, `"<path>" <sha256>`, in order of path. */
  digest(): string {
    const hash = createHash('sha256');
    const sorted = [...this.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    for (const file of sorted) hash.update(`${JSON.stringify(file.path)} ${file.sha256}\n`);
    return `sha256:${hash.digest('hex')}`;
  }
}
