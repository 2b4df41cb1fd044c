import { lstat, rmdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { LABEL, lowerName, copyCreateOptions, type DockerCopySpec, demuxLogs } from '@demo-rooms/contract/runner';
import { createLimit, type Limit } from '../limit.js';
import { EngineError, ImageGone, type CopyState, type EngineRun } from '../copy-engine.js';
import { bare, codeOf, dial, engineTime, gone, statusOf } from './docker-calls.js';
import { networksOf, removeNetwork } from './docker-networks.js';
import { WritableLayers } from './writable-layer.js';

// The Docker Engine API one call at a time (podman's compatible socket locally, Docker in
// production), under one bounded limit: what DockerEngine (../docker-engine.ts) builds a copy's
// lifecycle from. Tests reach these calls to look behind the lifecycle (a container's settings).

/** How long a stop waits for a killed container to be stopped before it removes it anyway, ms. */
const KILL_WAIT_MS = 10_000;
/** How many times a copy's /app is laid on a fresh holder when another runner removed the last one. */
const HOLDER_TRIES = 3;

/** A refused create; the engine lost the image since it was loaded (removed by hand, or by a sweep) is ImageGone. */
function createFailure(err: unknown): EngineError {
  const message = `create: ${(err as Error).message}`;
  return /image/i.test(message) ? new ImageGone(message, codeOf(err)) : new EngineError(message, codeOf(err));
}

/** Removes `path` and up to `levels - 1` of its parents while they are empty folders (rmdir refuses any other). */
async function forgetEmptyFolders(path: string, levels: number): Promise<void> {
  for (let at = path, i = 0; i < levels; i++, at = dirname(at)) {
    const removed = await rmdir(at).then(
      () => true,
      () => false,
    );
    if (!removed) return;
  }
}

export class DockerApi {
  readonly limit: Limit;
  private flavour: Promise<'podman' | 'docker'> | null = null;
  /** Where copies' writable places are mounted on the host (podman); without it, /app is a tmpfs filled from the image. */
  readonly writable: WritableLayers | null;

  constructor(
    readonly docker: Docker,
    opts: { concurrency?: number; writableDir?: string } = {},
  ) {
    this.limit = createLimit(opts.concurrency ?? 8);
    this.writable = opts.writableDir ? new WritableLayers(opts.writableDir) : null;
  }

  /** podman or Docker: networks without DNS are made through podman's own API (docker-networks.ts). */
  kind(): Promise<'podman' | 'docker'> {
    this.flavour ??= this.docker.version().then((v) => (v.Components?.some((c) => /podman/i.test(c.Name)) ? 'podman' : 'docker'));
    return this.flavour;
  }

  async ping(): Promise<void> {
    await this.docker.ping();
  }

  // --- images ---

  /** The image's id, or null when the engine does not hold it. */
  async imageId(ref: string): Promise<string | null> {
    try {
      return (await this.limit(() => this.docker.getImage(ref).inspect())).Id;
    } catch (err) {
      if (gone(err)) return null;
      throw err;
    }
  }

  /** POST /images/load with an uncompressed docker-archive; resolves once the engine has read all of it. */
  async loadImage(archive: Readable): Promise<string> {
    return this.limit(async () => {
      const out = await this.docker.loadImage(archive as unknown as NodeJS.ReadableStream, { quiet: true } as object);
      const chunks: Buffer[] = [];
      for await (const c of out as AsyncIterable<Buffer>) chunks.push(Buffer.from(c));
      const text = Buffer.concat(chunks).toString('utf8');
      // Errors can come inside a 200 stream: {"error": "..."} or {"errorDetail": ...}.
      const error = /"error(?:Detail)?"\s*:\s*(?:\{[^}]*"message"\s*:\s*)?"([^"]*)"/.exec(text);
      if (error) throw new EngineError(`image load failed: ${error[1]}`);
      return text;
    });
  }

  /** Points `ref` (`repo:tag`) at the image `id`, moving it from any image it named before. */
  async tagImage(id: string, ref: string): Promise<void> {
    const at = ref.lastIndexOf(':');
    await this.limit(() => this.docker.getImage(id).tag({ repo: ref.slice(0, at), tag: ref.slice(at + 1) }));
  }

  /** Every image's tags and creation time (seconds since the epoch). */
  async listImages(): Promise<{ id: string; tags: string[]; created: number }[]> {
    const images = await this.limit(() => this.docker.listImages());
    return images.map((i) => ({ id: i.Id, tags: i.RepoTags ?? [], created: i.Created }));
  }

  /** Untags `ref`, removing the image when nothing else holds it. An image a container uses stays. */
  async removeImage(ref: string): Promise<boolean> {
    const first = await this.untag(ref);
    if (first !== 'in use') return first === 'removed';
    // In use: when only its lower holder uses it (no copy does), the holder goes, then the image.
    const id = await this.imageId(ref);
    if (!id) return false;
    const users = await this.limit(() => this.docker.listContainers({ all: true, filters: JSON.stringify({ ancestor: [bare(id)] }) }));
    if (!users.length || users.some((c) => c.Labels?.[LABEL.lower] !== bare(id))) return false;
    for (const holder of users) await this.remove(holder.Id);
    return (await this.untag(ref)) === 'removed';
  }

  /** One remove of `ref`: done, already gone, or refused because a container uses it (409). */
  private async untag(ref: string): Promise<'removed' | 'gone' | 'in use'> {
    try {
      await this.limit(() => this.docker.getImage(ref).remove());
      return 'removed';
    } catch (err) {
      if (gone(err)) return 'gone';
      if (codeOf(err) === 409) return 'in use';
      throw err;
    }
  }

  // --- networks (docker-networks.ts) ---

  removeNetwork(name: string): Promise<void> {
    return removeNetwork(this, name);
  }

  networksOf(runnerId: string): Promise<{ name: string; labels: Record<string, string> }[]> {
    return networksOf(this, runnerId);
  }

  // --- containers ---

  /** Makes the copy's container, and its writable /app where the engine needs the host's help (podman). */
  async createContainer(spec: DockerCopySpec): Promise<string> {
    const kind = await this.kind();
    const volumes = (await this.limit(() => this.docker.getImage(spec.image).inspect()).catch(() => null))?.Config?.Volumes;
    spec = { ...spec, imageVolumes: Object.keys(volumes ?? {}) };
    if (kind !== 'podman' || this.writable === null) return this.createCopy(spec, kind);
    // The lower is another container's files: a runner sharing this engine may remove that holder
    // (its removeImage) between our mount and our create, before the copy pins the image. Its
    // files are then gone for good, and podman's create makes an empty folder where they were
    // (the copy would start with an empty /app): a lower that is no longer the mount it was (its
    // device changed) undoes the create, and the copy is laid again on a fresh holder. Once the copy
    // exists it pins the image and a removeImage that looks leaves the holder be; one that looked
    // just before and removes just after our look is the window left, milliseconds wide.
    for (let attempt = 1; ; attempt++) {
      const lower = await this.appLower(spec.image);
      const places = await this.writable.make(spec.runnerId, spec.copyId, spec.writableMb);
      const id = await this.createCopy({ ...spec, app: { kind: 'overlay', lower: lower.path, ...places } }, kind);
      if (lower.dev === null || (await lstat(lower.path).catch(() => null))?.dev === lower.dev) return id;
      await this.remove(id);
      await forgetEmptyFolders(lower.path, 3); // <layer>/merged/app, made by the create in podman's store
      if (attempt === HOLDER_TRIES) {
        await this.releaseWritable(spec.runnerId, spec.copyId).catch(() => {});
        throw new EngineError(
          `create: the image's files went away ${HOLDER_TRIES} times as the copy was made (another runner removed them)`,
        );
      }
    }
  }

  private async createCopy(spec: DockerCopySpec, kind: 'podman' | 'docker'): Promise<string> {
    const options = copyCreateOptions(spec, kind);
    options.HostConfig!.LogConfig =
      kind === 'podman'
        ? { Type: 'k8s-file', Config: { 'max-size': '1m' } }
        : { Type: 'json-file', Config: { 'max-size': '1m', 'max-file': '1' } };
    try {
      return (await this.limit(() => this.docker.createContainer(options))).id;
    } catch (err) {
      if (spec.app?.kind === 'overlay') await this.releaseWritable(spec.runnerId, spec.copyId).catch(() => {});
      throw createFailure(err);
    }
  }

  /** Unmounts and removes the copy's writable places on the host; resolves if there are none. */
  async releaseWritable(runnerId: string, copyId: string): Promise<void> {
    await this.writable?.release(runnerId, copyId);
  }

  /** Copies of this runner whose writable places are on the host, for the reconcile's sweep. */
  async writableHeld(runnerId: string): Promise<string[]> {
    return this.writable ? this.writable.held(runnerId) : [];
  }

  /**
   * The host path of the image's /app (and the device it is on, null for an empty lower of ours), the read-only lower of its copies' /app: the files of a
   * never-started container of the image (one per image on the host, labelled, outside every
   * runner's label so no reconcile touches it), mounted through podman's own API. Nothing is
   * copied; the holder goes when its image does (removeImage). Asked at every create, so a holder
   * another runner removed is made again.
   */
  private async appLower(image: string): Promise<{ path: string; dev: number | null }> {
    const root = await this.mountHolder(image);
    if (!root.startsWith('/')) throw new EngineError(`create: the engine did not mount the image's files (${root.slice(0, 80)})`);
    const app = `${root}/app`;
    // lstat, not stat: a /app that is a symbolic link would name a folder of the host.
    const found = await lstat(app).catch(() => null);
    // An image without /app: our own empty folder, which no other runner removes (no device to watch).
    if (!found) return { path: await this.writable!.emptyLower(), dev: null };
    if (!found.isDirectory()) throw new EngineError("create: the image's /app is not a folder");
    return { path: app, dev: found.dev };
  }

  /** The holder of the image's files, made if missing, mounted; made again if another runner removed it in between. */
  private async mountHolder(image: string): Promise<string> {
    const name = lowerName(image);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.limit(() =>
          this.docker.createContainer({
            name,
            Image: image,
            Entrypoint: ['/nonexistent'],
            Cmd: [],
            Labels: { [LABEL.lower]: bare(image) },
            HostConfig: { NetworkMode: 'none' },
          }),
        );
      } catch (err) {
        if (codeOf(err) !== 409 && !/already in use|already exists/i.test((err as Error).message)) throw createFailure(err);
      }
      try {
        const root = await this.limit(() => dial(this.docker, 'POST', `/v4.0.0/libpod/containers/${name}/mount`, {}));
        return String(root).trim().replace(/^"|"$/g, '');
      } catch (err) {
        if (!gone(err) || attempt === HOLDER_TRIES) throw new EngineError(`create: ${(err as Error).message}`, codeOf(err));
      }
    }
  }

  async startContainer(id: string): Promise<void> {
    try {
      await this.limit(() => this.docker.getContainer(id).start());
    } catch (err) {
      if (codeOf(err) === 304) return; // already started
      throw new EngineError(`start: ${(err as Error).message}`, codeOf(err));
    }
  }

  /** Removes a container whatever its state (SIGKILL if running). Resolves if it is already gone. */
  async remove(id: string): Promise<void> {
    try {
      await this.limit(() => this.docker.getContainer(id).remove({ force: true, v: true }));
    } catch (err) {
      if (!gone(err) && !/no such container|removal of container .* is already in progress/i.test((err as Error).message)) throw err;
    }
  }

  /** The container's state, its address on `network` (else its first network); null when it is gone. */
  async inspect(id: string, network?: string): Promise<CopyState | null> {
    return (await this.inspectStarted(id, network))?.state ?? null;
  }

  /** `inspect`, with the engine's record of when the container started (State.StartedAt; null before it did). */
  async inspectStarted(id: string, network?: string): Promise<{ state: CopyState; startedAt: Date | null } | null> {
    try {
      const info = await this.limit(() => this.docker.getContainer(id).inspect());
      const nets = info.NetworkSettings?.Networks ?? {};
      const net = network ? nets[network] : Object.values(nets)[0];
      const state: CopyState = {
        handle: info.Id,
        status: info.State.Paused ? 'paused' : statusOf(info.State.Status),
        exitCode: info.State.Running ? null : info.State.ExitCode,
        oomKilled: info.State.OOMKilled,
        labels: info.Config.Labels ?? {},
        address: net?.IPAddress || null,
      };
      return { state, startedAt: engineTime(info.State.StartedAt) };
    } catch (err) {
      if (gone(err)) return null;
      throw err;
    }
  }

  /**
   * The engine's record of the container's run (State.StartedAt/FinishedAt), or null when it is
   * gone. Docker and podman write the zero time (year 1) for a moment that has not happened.
   */
  async runOf(id: string): Promise<EngineRun | null> {
    try {
      const info = await this.limit(() => this.docker.getContainer(id).inspect());
      const labels = info.Config.Labels ?? {};
      const running = info.State.Running || info.State.Paused;
      return {
        copyId: labels[LABEL.copy] ?? '',
        handle: info.Id,
        labels,
        startedAt: engineTime(info.State.StartedAt),
        finishedAt: running ? null : engineTime(info.State.FinishedAt),
      };
    } catch (err) {
      if (gone(err)) return null;
      throw err;
    }
  }

  /**
   * Ends the container (SIGKILL, paused ones too) and waits until the engine has it stopped, so
   * its FinishedAt is written before a removal forgets it. A container already stopped or gone is
   * no error.
   */
  async kill(id: string): Promise<void> {
    const c = this.docker.getContainer(id);
    try {
      await this.limit(() => c.kill({ signal: 'KILL' }));
    } catch (err) {
      // 404: gone; 409/500 "not running": it had stopped already.
      if (gone(err) || /not running|state improper|is not running/i.test((err as Error).message)) return;
      throw err;
    }
    // Bounded: a container the kernel cannot stop at once is removed by force all the same.
    const bound = new AbortController();
    await Promise.race([
      this.limit(() => c.wait({ condition: 'not-running' })).catch(() => {}),
      sleep(KILL_WAIT_MS, undefined, { signal: bound.signal, ref: false }).catch(() => {}),
    ]);
    bound.abort();
  }

  async logTail(id: string, lines: number): Promise<string> {
    try {
      const raw = await this.limit(() => this.docker.getContainer(id).logs({ stdout: true, stderr: true, tail: lines, follow: false }));
      return demuxLogs(Buffer.from(raw as unknown as Buffer));
    } catch (err) {
      if (gone(err)) return '';
      throw err;
    }
  }

  /** Every container carrying this runner's label, in any state. */
  async containersOf(runnerId: string): Promise<{ id: string; status: CopyState['status']; labels: Record<string, string> }[]> {
    const list = await this.limit(() =>
      this.docker.listContainers({ all: true, filters: JSON.stringify({ label: [`${LABEL.runner}=${runnerId}`] }) }),
    );
    return list.map((c) => ({ id: c.Id, status: statusOf(c.State), labels: c.Labels ?? {} }));
  }
}
