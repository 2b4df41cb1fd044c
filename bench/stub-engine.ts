import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { LABEL, labelsOf, type CopySpec } from '@demo-rooms/contract/runner';
import type { CopyEngine, CopyExit, CopyRef, CopyState, EngineRun, Listed, StartHooks } from '../runner/engine/copy-engine.js';
import type { HostEngine, HostGuardState } from '../runner/engine/host-engine.js';

// A CopyEngine that runs nothing, for the admission benchmark (bench/admission-burst.bench.ts):
// the runner above it is the real one (admission, queue, starter, probe, records); only the
// engine is replaced, at its interface and nowhere else. `start` calls the same hooks as a real
// engine (made, then running), waits `startDelayMs` (what podman's create and start take), and
// answers with `address`: the runner then probes `http://<address>:<RUNNER_COPY_PORT><health>`
// for real, so the bench serves that one health path on loopback. Everything else (stop, state,
// list, images) is kept in memory, per runner id, as the engine would hold it.

export interface StubEngineOptions {
  /** How long a start takes between `made` and `running` (ms). */
  startDelayMs: number;
  /** The address every copy answers on: the bench's health server (loopback). */
  address: string;
}

interface Held {
  handle: string;
  runnerId: string;
  copyId: string;
  status: CopyState['status'];
  labels: Record<string, string>;
  /** The stub's own clock of the copy's run: the truth its usage is reconciled against. */
  startedAt: Date | null;
}

export class StubEngine implements CopyEngine, HostEngine {
  readonly can = { pause: false, checkpoint: false };
  /** Copies by handle: what `list` and `state` answer from. */
  private readonly held = new Map<string, Held>();
  private readonly images = new Map<string, string>();
  /**
   * The stub's own start/stop clock of every copy it ever ran, by handle, kept after the copy is
   * removed (the engine's record the usage benches compare billing with: bench/usage-metering.bench.ts).
   */
  private readonly ledger = new Map<string, { copyId: string; startedAt: Date | null; finishedAt: Date | null }>();
  /** Starts asked for and stops done, for the harness's own account (never for its checks of the caps). */
  starts = 0;
  stops = 0;

  constructor(private readonly opts: StubEngineOptions) {}

  async ping(): Promise<void> {}

  async guardHost(): Promise<HostGuardState> {
    return { installed: true, copies: true, refusal: null };
  }

  async prepare(build: { tag: string; recordedId: string | null }): Promise<string> {
    // The bundle is never opened: the image id is the recorded one, or one made up once per tag.
    const id = build.recordedId ?? this.images.get(build.tag) ?? `sha256:${randomUUID().replaceAll('-', '')}`;
    this.images.set(build.tag, id);
    return id;
  }

  async imageId(ref: string): Promise<string | null> {
    return this.images.get(ref) ?? null;
  }

  async listImages() {
    return [...this.images].map(([tag, id]) => ({ id, tags: [tag], created: 0 }));
  }

  async removeImage(ref: string): Promise<boolean> {
    return this.images.delete(ref);
  }

  async start(spec: CopySpec, hooks: StartHooks): Promise<{ handle: string; address: string }> {
    this.starts++;
    const handle = `stub-${randomUUID()}`;
    this.held.set(handle, {
      handle,
      runnerId: spec.runnerId,
      copyId: spec.copyId,
      status: 'created',
      labels: labelsOf(spec),
      startedAt: null,
    });
    hooks.phase('create');
    await hooks.made(handle);
    if (this.opts.startDelayMs > 0) await sleep(this.opts.startDelayMs, undefined, { signal: hooks.signal });
    hooks.signal.throwIfAborted();
    const copy = this.held.get(handle);
    if (!copy) throw new Error('the copy was stopped while starting');
    copy.status = 'running';
    copy.startedAt = new Date();
    this.ledger.set(handle, { copyId: spec.copyId, startedAt: copy.startedAt, finishedAt: null });
    hooks.phase('start');
    await hooks.running(copy.startedAt);
    return { handle, address: this.opts.address };
  }

  async stop(copy: CopyRef): Promise<EngineRun | null> {
    let run: EngineRun | null = null;
    for (const [handle, c] of this.held) {
      if (c.runnerId === copy.runnerId && (c.copyId === copy.copyId || handle === copy.handle)) {
        this.held.delete(handle);
        this.stops++;
        run = { ...this.runOf(c), finishedAt: c.startedAt ? new Date() : null };
        const kept = this.ledger.get(handle);
        if (kept) kept.finishedAt = run.finishedAt;
      }
    }
    return run;
  }

  async runs(runnerId: string): Promise<EngineRun[]> {
    return [...this.held.values()].filter((c) => c.runnerId === runnerId).map((c) => this.runOf(c));
  }

  /** Another runner's copies this engine holds (none, when each host has its own stub), stopped now. */
  async endRunsOf(runnerId: string): Promise<EngineRun[]> {
    const held = [...this.held.values()].filter((c) => c.runnerId === runnerId);
    const runs = await Promise.all(held.map((c) => this.stop({ runnerId, copyId: c.copyId, handle: c.handle })));
    return runs.filter((r): r is EngineRun => r !== null);
  }

  private runOf(c: Held): EngineRun {
    return { copyId: c.copyId, handle: c.handle, labels: c.labels, startedAt: c.startedAt, finishedAt: null };
  }

  async state(handle: string): Promise<CopyState | null> {
    const c = this.held.get(handle);
    if (!c) return null;
    return { handle, status: c.status, exitCode: null, oomKilled: false, labels: c.labels, address: this.opts.address };
  }

  async list(runnerId: string): Promise<Listed[]> {
    return [...this.held.values()]
      .filter((c) => c.runnerId === runnerId)
      .map((c) => ({ copyId: c.copyId, handle: c.handle, status: c.status, labels: c.labels }));
  }

  /**
   * Every run this engine ever started, on its own clock: started when it ran, finished when it
   * was stopped (null while it runs). A copy id started twice is listed twice.
   */
  clock(): { copyId: string; startedAt: Date | null; finishedAt: Date | null }[] {
    return [...this.ledger.values()].map((r) => ({ ...r }));
  }

  /** Copies this engine holds for `runnerId` now. */
  holding(runnerId: string): number {
    let n = 0;
    for (const c of this.held.values()) if (c.labels[LABEL.runner] === runnerId) n++;
    return n;
  }

  /** No copy of a stub ever exits on its own: the stream stays open, empty, until the runner closes it. */
  async exits(_runnerId: string, opts: { signal?: AbortSignal } = {}): Promise<AsyncIterable<CopyExit>> {
    const signal = opts.signal;
    return {
      async *[Symbol.asyncIterator]() {
        if (!signal || signal.aborted) return;
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      },
    };
  }

  async logTail(): Promise<string> {
    return '';
  }
}
