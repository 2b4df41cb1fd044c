import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import type { Config } from '../../services/core/infra/config.js';
import type { Sql } from '../../services/core/infra/db.js';
import type { Logger } from '../../services/core/infra/log.js';
import type { BuildRuns } from '../sessions/build-runs.js';
import type { CopyEngine } from '../engine/copy-engine.js';
import type { HostEngine, HostGuardState } from '../engine/host-engine.js';
import type { ImageStore } from '../images/image-store.js';

/** The runner's settings, in the units the code uses, read from the platform config. */
export interface RunnerSettings {
  runnerId: string;
  hostCapacity: number;
  /** Copies started at once; the rest of those admitted wait their turn (RUNNER_START_CONCURRENCY). */
  startConcurrency: number;
  /** New viewers held undecided at once; past it a newcomer is told to ask again (RUNNER_ARRIVALS_IN_FLIGHT). */
  arrivalsInFlight: number;
  copy: { memoryMb: number; cpus: number; pids: number; port: number; writableMb: number };
  /** Where copies' writable tmpfs mounts go on the host (podman), absolute. */
  writableDir: string;
  healthTimeoutMs: number;
  /** A start (image, engine, health) not ready this long after it began fails `deadline` (RUNNER_START_DEADLINE_S). */
  startDeadlineMs: number;
  /** Resume re-probes the health path this long at most before giving up on the copy. */
  resumeTimeoutMs: number;
  idlePauseMs: number;
  idleRemoveMs: number;
  maxAgeMs: number;
  warmMax: number;
  reconcileMs: number;
  /** How often the usage reconciliation runs (loops/usage-reconcile.ts). */
  usageReconcileMs: number;
  subnets: string;
  spendLimitUsd: number | null;
  copyHourUsd: number;
  hostGuard: 'auto' | 'on' | 'off';
  iptables: string;
  engineConcurrency: number;
  /** Largest unpacked image archive this host loads, bytes (RUNNER_MAX_IMAGE_BYTES). */
  maxImageBytes: number;
  /** Served workspaces; null serves all. */
  workspaces: string[] | null;
  /** A queued viewer the room stopped asking about this long ago is let go. */
  abandonMs: number;
  /** A session whose copy could not start is answered so for this long unless it asks to retry. */
  failHoldMs: number;
  callTimeoutMs: number;
  /** The fleet this host joins (RUNNER_FLEET), and how long a silent host has before it is lost (ms). */
  fleet: string;
  hostLostMs: number;
  /**
   * How the room reaches this host: set, the runner registers in runner_hosts and beats; null
   * (in-process tests) it does not. `copyOrigin` is its data plane, the only way to its copies.
   */
  advertise: { apiUrl: string; copyOrigin: string | null } | null;
  /** This host's data plane (HAProxy's admin socket and routes map file); null when none runs (then no viewer reaches its copies). */
  dataplane: { adminSocket: string; routesMap: string } | null;
}

/** `listening`: the runner process registers itself (main.ts); without it the runner joins no fleet. */
export function runnerSettings(c: Config, listening = false): RunnerSettings {
  // The room reaches copies only through their host's data plane (docs/runner.md, "One way to a
  // copy"): a host that runs one must say where the room finds it.
  if (listening && c.DATAPLANE_ADMIN_SOCKET && !c.RUNNER_COPY_ORIGIN)
    throw new Error(
      "bad configuration:\n  RUNNER_COPY_ORIGIN: the address the room reaches this host's data plane at (e.g. http://127.0.0.1:8084)",
    );
  return {
    runnerId:
      c.RUNNER_ID ??
      (hostname()
        .toLowerCase()
        .replace(/[^a-z0-9-]/g, '-')
        .replace(/^-+/, '')
        .slice(0, 40) ||
        'runner'),
    hostCapacity: c.RUNNER_HOST_CAPACITY,
    startConcurrency: c.RUNNER_START_CONCURRENCY,
    arrivalsInFlight: c.RUNNER_ARRIVALS_IN_FLIGHT,
    copy: {
      memoryMb: c.RUNNER_COPY_MEMORY_MB,
      cpus: c.RUNNER_COPY_CPUS,
      pids: c.RUNNER_COPY_PIDS,
      port: c.RUNNER_COPY_PORT,
      writableMb: c.RUNNER_COPY_WRITABLE_MB,
    },
    writableDir: resolve(c.RUNNER_WRITABLE_DIR ?? join(c.DATA_DIR, 'copies')),
    healthTimeoutMs: c.RUNNER_HEALTH_TIMEOUT_S * 1000,
    startDeadlineMs: c.RUNNER_START_DEADLINE_S * 1000,
    resumeTimeoutMs: 5_000,
    idlePauseMs: c.RUNNER_IDLE_PAUSE_S * 1000,
    idleRemoveMs: c.RUNNER_IDLE_REMOVE_S * 1000,
    maxAgeMs: c.RUNNER_MAX_AGE_S * 1000,
    warmMax: c.RUNNER_WARM_MAX,
    reconcileMs: c.RUNNER_RECONCILE_S * 1000,
    usageReconcileMs: c.RUNNER_USAGE_RECONCILE_S * 1000,
    subnets: c.RUNNER_SUBNETS,
    spendLimitUsd: c.RUNNER_SPEND_LIMIT_USD ?? null,
    copyHourUsd: c.RUNNER_COPY_HOUR_USD,
    hostGuard: c.RUNNER_HOST_GUARD,
    iptables: c.RUNNER_IPTABLES,
    engineConcurrency: c.RUNNER_ENGINE_CONCURRENCY,
    maxImageBytes: c.RUNNER_MAX_IMAGE_BYTES,
    workspaces: c.RUNNER_WORKSPACES
      ? c.RUNNER_WORKSPACES.split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : null,
    abandonMs: 120_000,
    failHoldMs: 30_000,
    callTimeoutMs: 10_000,
    fleet: c.RUNNER_FLEET,
    hostLostMs: c.RUNNER_HOST_LOST_S * 1000,
    advertise: listening
      ? { apiUrl: c.RUNNER_ADVERTISE_URL ?? `http://127.0.0.1:${c.RUNNER_PORT}`, copyOrigin: c.RUNNER_COPY_ORIGIN ?? null }
      : null,
    dataplane:
      c.DATAPLANE_ADMIN_SOCKET && c.DATAPLANE_ROUTES_MAP
        ? { adminSocket: c.DATAPLANE_ADMIN_SOCKET, routesMap: c.DATAPLANE_ROUTES_MAP }
        : null,
  };
}

/** The host a runner admits copies onto: its id and how many live copies it takes. */
export interface HostScope {
  runnerId: string;
  hostCapacity: number;
}

/** Where the room's long-polls wait for a change to their session (copies/session-waiters.ts). */
export interface Waiters {
  /** Resolves when the session is woken, or after `ms`. */
  wait(sessionId: string, ms: number): Promise<void>;
  wake(sessionId: string | null | undefined): void;
  /** Every waiter (the queue moved, so every place changed). */
  wakeAll(): void;
}

/** What every part of the runner shares: connections, settings, and the copies in hand in this process. */
export interface RunnerContext {
  sql: Sql;
  engine: CopyEngine;
  /** The engine's side on the runner's own host (the Docker engine): its guard and images; null on Kubernetes. */
  hostEngine: HostEngine | null;
  images: ImageStore;
  runs: BuildRuns;
  log: Logger;
  settings: RunnerSettings;
  host: HostScope;
  waiters: Waiters;
  /** Copies this process is starting: aborting one stops its start (viewer left, or it exited). */
  starting: Map<string, AbortController>;
  /** Copies this process is stopping: their engine events are expected, not news. */
  stopping: Set<string>;
  /** Asks for admissions of waiting viewers and a warm-pool top-up soon (a slot may have freed). */
  kick(): void;
  /** The host guard after start; copies start only while `copies` (hostEngine.guardHost). */
  hostGuard: HostGuardState;
  /** Start failures per build, so the warm pool backs off a build that keeps failing. */
  failures: Map<string, { count: number; until: number }>;
}
