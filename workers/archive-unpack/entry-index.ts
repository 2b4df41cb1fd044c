import { ArchiveRefusal, quote, refuseEntry } from './archive-rules.js';
import { foldPath } from './entry-path.js';

// Every path the archive has named so far, files and folders (given or implied by a file's
// parents), keyed by foldPath. It refuses a second entry for one key, even spelt the same, and a
// name used both as a file and as a folder, in either order.

export class EntryIndex {
  /** folded path → the path as first spelt */
  private readonly files = new Map<string, string>();
  private readonly folders = new Map<string, string>();

  constructor(private readonly maxFolders: number) {}

  get fileCount(): number {
    return this.files.size;
  }

  /** Records a regular file at `path` (already normalised); `raw` is its name in the archive. */
  addFile(path: string, raw: string): void {
    const key = foldPath(path);
    const file = this.files.get(key);
    if (file !== undefined) throw collision(raw, path, file);
    const folder = this.folders.get(key);
    if (folder !== undefined) throw refuseEntry('conflict', raw, `a folder ${quote(folder)} already exists where this file would go`);
    this.addParents(path, raw);
    this.files.set(key, path);
  }

  /** Records a folder; the same folder spelt the same way may be named again (tar does that). */
  addFolder(path: string, raw: string): void {
    this.addParents(path, raw);
    this.addOneFolder(path, raw);
  }

  has(path: string): boolean {
    return this.files.get(foldPath(path)) === path;
  }

  private addParents(path: string, raw: string): void {
    for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) {
      this.addOneFolder(path.slice(0, slash), raw);
    }
  }

  private addOneFolder(folder: string, raw: string): void {
    const key = foldPath(folder);
    const seen = this.folders.get(key);
    if (seen === folder) return;
    if (seen !== undefined) throw collision(raw, folder, seen);
    const file = this.files.get(key);
    if (file !== undefined) throw refuseEntry('conflict', raw, `${quote(file)} is a file, so it cannot also be a folder`);
    if (this.folders.size >= this.maxFolders) {
      throw new ArchiveRefusal('too-many-files', raw, `${quote(raw)}: an archive may hold at most ${this.maxFolders} folders`);
    }
    this.folders.set(key, folder);
  }
}

function collision(raw: string, path: string, earlier: string): ArchiveRefusal {
  return earlier === path
    ? refuseEntry('duplicate', raw, `the path ${quote(path)} appears twice`)
    : earlier.normalize('NFC') === path.normalize('NFC')
      ? refuseEntry('duplicate', raw, `the path ${quote(path)} is ${quote(earlier)} again, in another Unicode form`)
      : refuseEntry('duplicate', raw, `the path ${quote(path)} collides with ${quote(earlier)} once case and Unicode forms are folded`);
}
