import type Docker from 'dockerode';
import { LABEL, containerName, labelsOf, networkName, type CopySpec } from '@demo-rooms/contract/runner';
import type { Logger } from '../../services/core/infra/log.js';
import {
  EngineError,
  ExitedAtStart,
  type BuildImage,
  type CopyEngine,
  type CopyExit,
  type CopyRef,
  type CopyState,
  type EngineRun,
  type Listed,
  type StartHooks,
  type StopHooks,
} from './copy-engine.js';
import { DockerApi } from './docker/docker-api.js';
import type { HostEngine, HostGuardState } from './host-engine.js';
import { dockerExits } from './docker/docker-exits.js';
import { createNetwork } from './docker/docker-networks.js';
import { prepareImage } from './docker/docker-prepare.js';
import { installHostGuard, type GuardMode } from './docker/host-guard.js';

// The CopyEngine (copy-engine.ts) over the Docker Engine API: podman's compatible socket locally,
// Docker in production. A copy is a container alone on its own internal network (docker-networks.ts),
// with a writable /app on a tmpfs of the host (writable-layer.ts, podman), behind the host guard's
// iptables rules (host-guard.ts); its image comes from the build's bundle (docker-prepare.ts) and its
// exits from /events (docker-exits.ts). The calls one at a time are DockerApi (docker/docker-api.ts).
// Besides the CopyEngine it is a HostEngine (host-engine.ts): the host guard, and the host's images
// (imageId, listImages, removeImage, in DockerApi) for the image collection.

/** RUNNER_SUBNETS' default: where copies' /29 networks come from. */
const DEFAULT_SUBNETS = '10.213.0.0/16';

export class DockerEngine extends DockerApi implements CopyEngine, HostEngine {
  /** Docker pauses a container in place (the cgroup freezer); checkpoints need CRIU, which no host of ours has. */
  readonly can = { pause: true, checkpoint: false };
  private readonly subnets: string;

  constructor(docker: Docker, opts: { concurrency?: number; writableDir?: string; subnets?: string } = {}) {
    super(docker, opts);
    this.subnets = opts.subnets ?? DEFAULT_SUBNETS;
  }

  guardHost(opts: { mode: GuardMode; iptables: string; log: Logger }): Promise<HostGuardState> {
    return installHostGuard(opts.mode, opts.log, opts.iptables);
  }

  prepare(build: BuildImage): Promise<string> {
    return prepareImage(this, build);
  }

  /** Network, container (recorded through `made` before it runs), start, then its address on its network. */
  async start(spec: CopySpec, o: StartHooks): Promise<{ handle: string; address: string }> {
    const network = await createNetwork(this, spec.copyId, labelsOf(spec), this.subnets);
    o.phase('network');
    o.signal.throwIfAborted();
    const handle = await this.createContainer({ ...spec, network });
    o.phase('create');
    await o.made(handle);
    o.signal.throwIfAborted();
    await this.startContainer(handle);
    // The start is dated at podman's own StartedAt: the start call returns later (a few tenths
    // of a second under load), and billing counts from the start (issue 46).
    const inspected = await this.inspectStarted(handle, network);
    await o.running(inspected?.startedAt ?? undefined);
    o.phase('start');
    const state = inspected?.state;
    if (!state || state.status === 'exited') throw new ExitedAtStart(state?.exitCode ?? null, state?.oomKilled ?? false);
    if (!state.address) throw new EngineError('the copy has no address on its network');
    return { handle, address: state.address };
  }

  /**
   * The container (ended first and its run read, as the engine forgets it once removed), its
   * network and its writable places; each is tried even when another fails.
   */
  async stop(copy: CopyRef, hooks?: StopHooks): Promise<EngineRun | null> {
    const failed: string[] = [];
    const attempt = async (what: string, step: () => Promise<void>) => {
      await step().catch((err: Error) => failed.push(`${what}: ${err.message}`));
    };
    const container = copy.handle ?? containerName(copy.copyId);
    let run: EngineRun | null = null;
    await attempt('container', async () => {
      // A kill refused is no reason to keep the container: the forced removal ends it, and the
      // run's finish is then the moment the runner kept the record (no FinishedAt). A record that
      // cannot be read fails the stop instead: null would say the engine never ran the copy.
      await this.kill(container).catch(() => {});
      run = await this.runOf(container);
      if (run) await hooks?.read?.(run);
      await this.remove(container);
    });
    await attempt('network', () => this.removeNetwork(networkName(copy.copyId)));
    // After the container: its overlay no longer holds the copy's tmpfs.
    await attempt('writable place', () => this.releaseWritable(copy.runnerId, copy.copyId));
    if (failed.length) throw new EngineError(`not removed: ${failed.join('; ')}`);
    return run;
  }

  state(handle: string): Promise<CopyState | null> {
    return this.inspect(handle);
  }

  /**
   * Containers first, then what a start made before its container or a stop left behind
   * (networks, writable places), as copies with no handle. A container of this runner that
   * carries no copy label was not made by `start`, and is not listed.
   */
  async list(runnerId: string): Promise<Listed[]> {
    const byCopy = new Map<string, Listed>();
    for (const c of await this.containersOf(runnerId)) {
      const copyId = c.labels[LABEL.copy];
      if (copyId) byCopy.set(copyId, { copyId, handle: c.id, status: c.status, labels: c.labels });
    }
    const leftover = (copyId: string | undefined, labels: Record<string, string>) => {
      if (copyId && !byCopy.has(copyId)) byCopy.set(copyId, { copyId, handle: null, status: null, labels });
    };
    for (const n of await this.networksOf(runnerId)) leftover(n.labels[LABEL.copy], n.labels);
    for (const copyId of await this.writableHeld(runnerId)) leftover(copyId, {});
    return [...byCopy.values()];
  }

  /** Each container of this runner's copies, as the engine records its run. */
  async runs(runnerId: string): Promise<EngineRun[]> {
    const copies = (await this.containersOf(runnerId)).filter((c) => c.labels[LABEL.copy]);
    const runs = await Promise.all(copies.map((c) => this.runOf(c.id)));
    return runs.filter((r): r is EngineRun => r !== null);
  }

  /** Another runner's containers (and leftovers) on this engine: on one podman or Docker shared by hosts, a lost host's. */
  async endRunsOf(runnerId: string): Promise<EngineRun[]> {
    const held = await this.list(runnerId);
    const ended = await Promise.allSettled(held.map((c) => this.stop({ runnerId, copyId: c.copyId, handle: c.handle })));
    return ended.flatMap((r) => (r.status === 'fulfilled' && r.value ? [r.value] : []));
  }

  exits(runnerId: string, opts?: { since?: number; signal?: AbortSignal }): Promise<AsyncIterable<CopyExit>> {
    return dockerExits(this.docker, runnerId, opts);
  }

  async pause(handle: string): Promise<void> {
    await this.limit(() => this.docker.getContainer(handle).pause());
  }

  async resume(handle: string): Promise<void> {
    await this.limit(() => this.docker.getContainer(handle).unpause());
  }
}
