import type { Readable } from 'node:stream';
import type { CopySpec } from '@demo-rooms/contract/runner';

// The runner's one door to where copies run, at the height of a copy's life: prepare an image,
// start a copy and say where it answers, pause it, stop it, list what runs, follow the exits.
// Everything an engine is made of (Docker's networks, subnets, image archives, event format,
// iptables, tmpfs mounts; a Kubernetes engine's Pods and NetworkPolicies) stays inside its
// implementation, as trigger.dev's WorkloadManager and JupyterHub's Spawner keep theirs.
// DockerEngine (docker-engine.ts) and KubernetesEngine (kubernetes/kubernetes-engine.ts) implement it,
// RUNNER_ENGINE choosing (engine-factory.ts); test/support/runner/copy-engine-conformance.ts holds the
// promises every engine keeps, and both run it. What only an engine on the runner's own host does
// (the host guard, the host's images) is not here: it is HostEngine (host-engine.ts), which the
// Docker engine implements besides.

/** What this engine can do beyond start and stop; the runner asks here before it asks for it. */
export interface EngineCan {
  /** Freeze a copy in place and wake it again (the idle culler's first tier). */
  pause: boolean;
  /** Snapshot a running copy and start new copies from the snapshot (warm starts). */
  checkpoint: boolean;
}

/** A copy as the engine sees it. */
export interface CopyState {
  handle: string;
  status: 'created' | 'running' | 'paused' | 'exited' | 'other';
  exitCode: number | null;
  oomKilled: boolean;
  labels: Record<string, string>;
  /** Where the copy answers (its own network's address), when it has one. */
  address: string | null;
}

/**
 * Something the engine holds for one copy of a runner. `handle` is null when only leftovers of a
 * start remain (a network, a writable layer, without a running unit): `stop` removes them.
 */
export interface Listed {
  copyId: string;
  handle: string | null;
  status: CopyState['status'] | null;
  labels: Record<string, string>;
}

/**
 * The engine's own record of one copy's run (issue 46), on the engine's clock: podman's
 * State.StartedAt/FinishedAt, a pod's container status. What usage is reconciled against.
 * `startedAt` is null when the unit never ran; `finishedAt` null while it still runs.
 */
export interface EngineRun {
  copyId: string;
  handle: string;
  labels: Record<string, string>;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** A copy's end, as the engine reported it. `at` is the engine's clock (seconds), to resume from. */
export interface CopyExit {
  copyId: string;
  handle: string;
  exitCode: number | null;
  oom: boolean;
  at?: number;
}

/** What `stop` removes: everything `start` made for this copy of this runner, and the unit `handle` names. */
export interface CopyRef {
  runnerId: string;
  copyId: string;
  handle?: string | null;
}

/** A build's image as the runner knows it; `bundle` is opened only when the engine must load it. */
export interface BuildImage {
  buildId: string;
  /** The name the engine keeps the image under; the image collection removes it by this name. */
  tag: string;
  /** The image id the bundle check recorded; null for builds checked before ids were kept. */
  recordedId: string | null;
  /** The build's bundle (a gzipped image archive, or a plain one when `gzipped` is false), at most `maxBytes` unpacked. */
  bundle(): Promise<{ body: Readable; size: number; gzipped?: boolean }>;
  maxBytes: number;
  /**
   * Where the build's image was pushed (issue 32): its repository in the platform's registry and
   * its manifest digest; absent for tarball builds. An engine whose nodes pull (Kubernetes) runs
   * only these; the Docker engine reads the same image through `bundle`.
   */
  pushed?: { repository: string; digest: string };
}

export interface StopHooks {
  /**
   * Called with the unit's record once the engine has ended it and before the engine forgets it
   * (removes it), where the engine can tell the two apart (Docker): the runner keeps the record
   * here, so a runner that dies in between leaves the record kept (record before act). A throw
   * leaves the unit in place and fails the stop.
   */
  read?(run: EngineRun): Promise<void>;
}

export interface StartHooks {
  signal: AbortSignal;
  /**
   * Called once the copy exists and before it runs, with its handle: the runner records it here
   * (record before act), so a crash from now on leaves a record naming it. A throw abandons the
   * start (the caller stops what was made).
   */
  made(handle: string): Promise<void>;
  /**
   * Called once the copy runs: its clock starts (usage and the maximum age count from here). `at`
   * is the engine's own record of the moment (podman's State.StartedAt, a pod's
   * `running.startedAt`); billing counts from it, not from when the engine's call returned.
   */
  running(at?: Date): Promise<void>;
  /** Called as each phase of the start ends (network, create, start…), for the start's timings. */
  phase(name: string): void;
}

export interface CopyEngine {
  readonly can: EngineCan;
  /** The engine answers. */
  ping(): Promise<void>;

  /** The build's image, ready to start copies from; idempotent. Returns its ref (an image id). */
  prepare(build: BuildImage, signal?: AbortSignal): Promise<string>;

  /** Makes the copy, isolated and limited, runs it, and says where it answers. */
  start(spec: CopySpec, opts: StartHooks): Promise<{ handle: string; address: string }>;
  /**
   * Removes whatever `start` made for the copy; resolves when there is nothing, with the engine's
   * record of the unit it removed (ended first, so its finish is the engine's), or null when there
   * was none. The engine forgets a unit once removed: the caller keeps this record.
   */
  stop(copy: CopyRef, hooks?: StopHooks): Promise<EngineRun | null>;
  /** The copy's state, or null when it is gone. */
  state(handle: string): Promise<CopyState | null>;
  /** Everything the engine holds for this runner's copies, in any state (for reconcile). */
  list(runnerId: string): Promise<Listed[]>;
  /** The engine's record of each unit of this runner's copies it holds now (the usage reconciliation). */
  runs(runnerId: string): Promise<EngineRun[]>;
  /**
   * Another runner's copies, as a survivor settles a lost host (issue 46): each unit of `runnerId`
   * this engine can see is ended (one still running is stopped now) and removed, with what `start`
   * made for it, and its record returned as `stop` returns it (so its finish is the engine's). An
   * engine that cannot see that runner's units (another machine's Docker) returns none; a unit
   * whose removal fails is left out (its copy stays billed to the host's last beat).
   */
  endRunsOf(runnerId: string): Promise<EngineRun[]>;
  /**
   * This runner's copies' exits, from `since` (engine seconds) on, once the stream is open. The
   * stream ends or throws when the engine's connection breaks; the caller opens it again.
   */
  exits(runnerId: string, opts?: { since?: number; signal?: AbortSignal }): Promise<AsyncIterable<CopyExit>>;
  /** The last `lines` of the copy's output (stdout and stderr interleaved); '' when it is gone. */
  logTail(handle: string, lines: number): Promise<string>;

  /** Ends what the engine keeps open between calls (the Kubernetes engine's pod watch); copies stay. */
  close?(): Promise<void>;

  /** Present when `can.pause`. */
  pause?(handle: string): Promise<void>;
  resume?(handle: string): Promise<void>;
  /** Present when `can.checkpoint`. */
  checkpoint?(handle: string): Promise<string>;
  restore?(snapshot: string, spec: CopySpec, opts: StartHooks): Promise<{ handle: string; address: string }>;
}

export class EngineError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

/** The image a start named is gone from the engine (removed by hand, or by a sweep): prepare it again. */
export class ImageGone extends EngineError {}

/** The copy exited while it was being started, before it had an address. */
export class ExitedAtStart extends EngineError {
  constructor(
    readonly exitCode: number | null,
    readonly oomKilled: boolean,
  ) {
    super('the copy exited while starting');
  }
}

/** The build has no image this engine can run (not a container build, bundle gone, not the recorded image). */
export class ImageMissing extends Error {}
/** The build's image is over RUNNER_MAX_IMAGE_BYTES: this host will not load it. */
export class ImageTooLarge extends ImageMissing {}
