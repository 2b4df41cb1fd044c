import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { createLimit, type Limit } from '../limit.js';
import { copyCreateOptions, type CopySpec } from '../../services/contract/runner/copy-spec.js';
import { lstat } from 'node:fs/promises';
import { LABEL, bridgeName, lowerName, networkName } from '../../services/contract/runner/copy-labels.js';
import { demuxLogs } from '../../services/contract/runner/log-frames.js';
import { EngineError, type ContainerState, type Engine, type Listed } from './engine.js';
import { pickSubnet } from './subnets.js';
import { WritableLayers } from './writable-layer.js';

// The Engine (engine.ts) over the Docker Engine API: podman's compatible socket locally, Docker
// in production. Every call goes through one bounded limit.

const statusOf = (s: string | undefined): ContainerState['status'] =>
  s === 'created' || s === 'running' || s === 'paused' || s === 'exited' ? s : s === 'configured' || s === 'initialized' ? 'created' : 'other';

const codeOf = (err: unknown) => (err as { statusCode?: number }).statusCode;
const gone = (err: unknown) => codeOf(err) === 404;
const bare = (imageId: string) => imageId.replace(/^sha256:/, '');

export class DockerEngine implements Engine {
  readonly limit: Limit;
  private flavour: Promise<'podman' | 'docker'> | null = null;
  /** Where copies' writable places are mounted on the host (podman); without it, /app is a tmpfs filled from the image. */
  readonly writable: WritableLayers | null;

  constructor(readonly docker: Docker, opts: { concurrency?: number; writableDir?: string } = {}) {
    this.limit = createLimit(opts.concurrency ?? 8);
    this.writable = opts.writableDir ? new WritableLayers(opts.writableDir) : null;
  }

  /** podman or Docker: networks without DNS are made through podman's own API (below). */
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

  // --- networks ---

  /**
   * An internal network (no route out) for one copy, with its own /29 and its own bridge, and no
   * DNS server: podman's aardvark-dns would forward any name upstream, a way out by DNS. Retries
   * on a subnet another network took.
   */
  async createNetwork(copyId: string, labels: Record<string, string>, pool: string): Promise<string> {
    const name = networkName(copyId);
    const flavour = await this.kind();
    for (let attempt = 0; ; attempt++) {
      const { subnet, gateway } = pickSubnet(pool);
      try {
        await this.limit(async () => {
          if (flavour === 'podman') {
            await this.dial('POST', '/v4.0.0/libpod/networks/create', {
              name, driver: 'bridge', internal: true, dns_enabled: false, labels,
              network_interface: bridgeName(copyId), subnets: [{ subnet, gateway }],
            });
          } else {
            await this.docker.createNetwork({
              Name: name, Driver: 'bridge', Internal: true, Labels: labels, CheckDuplicate: true,
              IPAM: { Driver: 'default', Config: [{ Subnet: subnet, Gateway: gateway }] },
              Options: { 'com.docker.network.bridge.name': bridgeName(copyId), 'com.docker.network.bridge.enable_icc': 'false' },
            });
          }
        });
        return name;
      } catch (err) {
        const message = (err as Error).message ?? '';
        if (attempt < 8 && /already used|overlap|in use/i.test(message) && !/name .* already/i.test(message)) continue;
        if (/already exists|name .* already/i.test(message)) return name; // a retry of our own create
        throw new EngineError(`network: ${message}`, codeOf(err));
      }
    }
  }

  async removeNetwork(name: string): Promise<void> {
    try {
      await this.limit(() => this.docker.getNetwork(name).remove());
    } catch (err) {
      if (!gone(err)) throw err;
    }
  }

  async networksOf(runnerId: string): Promise<{ name: string; labels: Record<string, string> }[]> {
    const nets = await this.limit(() => this.docker.listNetworks({ filters: JSON.stringify({ label: [`${LABEL.runner}=${runnerId}`] }) }));
    return nets.map((n) => ({ name: n.Name, labels: n.Labels ?? {} }));
  }

  // --- containers ---

  async createContainer(spec: CopySpec): Promise<string> {
    const kind = await this.kind();
    const volumes = (await this.limit(() => this.docker.getImage(spec.image).inspect()).catch(() => null))?.Config?.Volumes;
    spec = { ...spec, imageVolumes: Object.keys(volumes ?? {}) };
    const overlay = kind === 'podman' && this.writable !== null;
    if (overlay) {
      const lower = await this.appLower(spec.image);
      const places = await this.writable!.make(spec.runnerId, spec.copyId, spec.writableMb);
      spec = { ...spec, app: { kind: 'overlay', lower, ...places } };
    }
    const options = copyCreateOptions(spec, kind);
    options.HostConfig!.LogConfig = kind === 'podman'
      ? { Type: 'k8s-file', Config: { 'max-size': '1m' } }
      : { Type: 'json-file', Config: { 'max-size': '1m', 'max-file': '1' } };
    try {
      return (await this.limit(() => this.docker.createContainer(options))).id;
    } catch (err) {
      if (overlay) await this.releaseWritable(spec.runnerId, spec.copyId).catch(() => {});
      throw new EngineError(`create: ${(err as Error).message}`, codeOf(err));
    }
  }

  async releaseWritable(runnerId: string, copyId: string): Promise<void> {
    await this.writable?.release(runnerId, copyId);
  }

  async writableHeld(runnerId: string): Promise<string[]> {
    return this.writable ? this.writable.held(runnerId) : [];
  }

  /**
   * The host path of the image's /app, the read-only lower of its copies' /app: the files of a
   * never-started container of the image (one per image on the host, labelled, outside every
   * runner's label so no reconcile touches it), mounted through podman's own API. Nothing is
   * copied; the holder goes when its image does (removeImage). Asked at every create, so a holder
   * another runner removed is made again.
   */
  private async appLower(image: string): Promise<string> {
    const name = lowerName(image);
    try {
      await this.limit(() => this.docker.createContainer({
        name, Image: image, Entrypoint: ['/nonexistent'], Cmd: [], Labels: { [LABEL.lower]: bare(image) },
        HostConfig: { NetworkMode: 'none' },
      }));
    } catch (err) {
      if (codeOf(err) !== 409 && !/already in use|already exists/i.test((err as Error).message)) throw new EngineError(`create: ${(err as Error).message}`, codeOf(err));
    }
    const root = String(await this.limit(() => this.dial('POST', `/v4.0.0/libpod/containers/${name}/mount`, {}))).trim().replace(/^"|"$/g, '');
    if (!root.startsWith('/')) throw new EngineError(`create: the engine did not mount the image's files (${root.slice(0, 80)})`);
    const app = `${root}/app`;
    // lstat, not stat: a /app that is a symbolic link would name a folder of the host.
    const found = await lstat(app).catch(() => null);
    if (!found) return this.writable!.emptyLower();
    if (!found.isDirectory()) throw new EngineError("create: the image's /app is not a folder");
    return app;
  }

  async start(id: string): Promise<void> {
    try {
      await this.limit(() => this.docker.getContainer(id).start());
    } catch (err) {
      if (codeOf(err) === 304) return; // already started
      throw new EngineError(`start: ${(err as Error).message}`, codeOf(err));
    }
  }

  async pause(id: string): Promise<void> {
    await this.limit(() => this.docker.getContainer(id).pause());
  }

  async unpause(id: string): Promise<void> {
    await this.limit(() => this.docker.getContainer(id).unpause());
  }

  /** Removes a container whatever its state (SIGKILL if running). Resolves if it is already gone. */
  async remove(id: string): Promise<void> {
    try {
      await this.limit(() => this.docker.getContainer(id).remove({ force: true, v: true }));
    } catch (err) {
      if (!gone(err) && !/no such container|removal of container .* is already in progress/i.test((err as Error).message)) throw err;
    }
  }

  async inspect(id: string, network?: string): Promise<ContainerState | null> {
    try {
      const info = await this.limit(() => this.docker.getContainer(id).inspect());
      const nets = info.NetworkSettings?.Networks ?? {};
      const net = network ? nets[network] : Object.values(nets)[0];
      return {
        id: info.Id,
        status: info.State.Paused ? 'paused' : statusOf(info.State.Status),
        exitCode: info.State.Running ? null : info.State.ExitCode,
        oomKilled: info.State.OOMKilled,
        labels: info.Config.Labels ?? {},
        address: net?.IPAddress || null,
      };
    } catch (err) {
      if (gone(err)) return null;
      throw err;
    }
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
  async containersOf(runnerId: string): Promise<Listed[]> {
    const list = await this.limit(() => this.docker.listContainers({ all: true, filters: JSON.stringify({ label: [`${LABEL.runner}=${runnerId}`] }) }));
    return list.map((c) => ({ id: c.Id, status: statusOf(c.State), labels: c.Labels ?? {} }));
  }

  /** The engine's event stream for this runner's containers (outside the limit: it is one long request). */
  async events(runnerId: string, since?: number): Promise<NodeJS.ReadableStream> {
    return this.docker.getEvents({
      ...(since ? { since } : {}),
      filters: JSON.stringify({ type: ['container'], label: [`${LABEL.runner}=${runnerId}`] }),
    } as object);
  }

  private dial(method: string, path: string, options: unknown): Promise<unknown> {
    return new Promise((resolve, reject) => {
      (this.docker.modem as { dial: (o: object, cb: (err: unknown, data: unknown) => void) => void }).dial(
        { path, method, options, statusCodes: { 200: true, 201: true, 204: true, 400: 'bad request', 404: 'not found', 409: 'conflict', 500: 'server error' } },
        (err, data) => (err ? reject(err) : resolve(data)),
      );
    });
  }
}
