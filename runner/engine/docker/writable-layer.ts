import { execFile } from 'node:child_process';
import { chmod, chown, mkdir, readdir, readFile, realpath, rm, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

// The host side of a copy's writable /app on podman (copy-spec.ts, `overlay`): one tmpfs per copy,
// mounted by the runner at <dir>/<runnerId>/<copyId>, holding the overlay's upper and work folders.
// Its size is the bound (ENOSPC past it) and its pages are charged to the memory cgroup of the copy
// that writes them. It is unmounted and removed when the copy's resources go (every exit path ends
// in removeResources), and a reconcile sweeps what a crashed runner left: the folder of a copy
// that is not live. Unmounts are lazy: if the engine still holds the overlay, the tmpfs goes with it.

/** The copy's user (copy-spec.ts COPY_USER): it owns the upper folder, so it owns the merged /app. */
const UID = 1000;
const GID = 1000;

export interface WritablePlaces {
  upper: string;
  work: string;
}

/** Mount points of this process's namespace (octal escapes of /proc/self/mountinfo decoded). */
async function mountPoints(): Promise<Set<string>> {
  const text = await readFile('/proc/self/mountinfo', 'utf8');
  return new Set(
    text
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ')[4].replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)))),
  );
}

export class WritableLayers {
  private base: Promise<string> | null = null;

  constructor(readonly dir: string) {}

  /** The folder as the kernel names it (mountinfo holds no symbolic links). */
  private root(): Promise<string> {
    this.base ??= mkdir(this.dir, { recursive: true, mode: 0o755 }).then(() => realpath(this.dir));
    return this.base;
  }

  private async of(runnerId: string, copyId: string) {
    if (!/^[a-z0-9-]+$/i.test(runnerId) || !/^[a-z0-9-]+$/i.test(copyId)) throw new Error('bad copy or runner id');
    return join(await this.root(), runnerId, copyId);
  }

  /** An empty folder, for an image without /app: the overlay needs a lower. */
  async emptyLower(): Promise<string> {
    const path = join(await this.root(), '.empty');
    await mkdir(path, { recursive: true, mode: 0o755 });
    return path;
  }

  /** The copy's fresh tmpfs of `sizeMb`, with its upper and work folders. */
  async make(runnerId: string, copyId: string, sizeMb: number): Promise<WritablePlaces> {
    const at = await this.of(runnerId, copyId);
    await this.release(runnerId, copyId); // a half-made one from an earlier try
    await mkdir(at, { recursive: true, mode: 0o700 });
    await run('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0700,nosuid,nodev`, 'tmpfs', at]);
    const places = { upper: join(at, 'upper'), work: join(at, 'work') };
    for (const path of [places.upper, places.work]) {
      await mkdir(path, { mode: 0o755 });
      await chown(path, UID, GID);
      await chmod(path, 0o755);
    }
    return places;
  }

  /** Unmounts and removes the copy's tmpfs; nothing happens when it is already gone. */
  async release(runnerId: string, copyId: string): Promise<void> {
    const at = await this.of(runnerId, copyId);
    if ((await mountPoints()).has(at))
      await run('umount', ['-l', at]).catch(async (err: Error) => {
        // Another removal of the same copy unmounted it in between: released all the same.
        if ((await mountPoints()).has(at)) throw err;
      });
    await rm(at, { recursive: true, force: true });
    await rmdir(dirname(at)).catch(() => {}); // the runner's folder, once it holds no copy
  }

  /** Copies of this runner that have writable places on the host (mounted or left over). */
  async held(runnerId: string): Promise<string[]> {
    return readdir(join(await this.root(), runnerId)).catch(() => []);
  }
}
