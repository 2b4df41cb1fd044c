import type { Sql } from '../../services/core/infra/db.js';
import type { Logger } from '../../services/core/infra/log.js';
import type { Storage } from '../../services/core/infra/storage.js';
import type { Registry } from '../../services/core/infra/registry/registry-pull.js';
import { createAdmissionPasses } from '../copies/admission-passes.js';
import { createBackgroundWork } from './background-work.js';
import { createBuildRuns } from '../sessions/build-runs.js';
import { createWaiters } from '../copies/session-waiters.js';
import type { CopyEngine } from '../engine/copy-engine.js';
import type { HostEngine } from '../engine/host-engine.js';
import { createImageStore } from '../images/image-store.js';
import type { RunnerContext, RunnerSettings } from './runner-context.js';
import { createRunnerLoops } from './runner-loops.js';
import { createSessionCopies } from '../sessions/session-copies.js';
import { createSpendCheck } from '../copies/spend.js';
import { createRouteSync } from '../dataplane/route-sync.js';

// The runner as a service, one instance per container host, named by RUNNER_ID: the viewer
// sessions its HTTP API serves (sessions/session-copies.ts) and the loops that keep engine and records
// in step (runner-loops.ts), over one shared context.

export interface RunnerDeps {
  sql: Sql;
  storage: Storage;
  engine: CopyEngine;
  /** The engine's side on this host (the Docker engine itself: createEngine's `host`); absent on Kubernetes. */
  host?: HostEngine | null;
  log: Logger;
  settings: RunnerSettings;
  /** Where pushed builds' images are pulled from (issue 32); null when the platform has no registry. */
  registry?: Registry | null;
}

export type RunnerService = ReturnType<typeof createRunnerService>;

/** At most one warm-pool top-up this often after copies end (ms; docs/scale.md, "Twelfth round"). */
const TOP_UP_AFTER_ENDS_MS = 1_000;

export function createRunnerService(deps: RunnerDeps) {
  const { sql, engine, log, settings } = deps;
  const work = createBackgroundWork(log);
  const overSpend = createSpendCheck(sql, settings.spendLimitUsd, settings.copyHourUsd);
  let kickPending = false;

  const ctx: RunnerContext = {
    sql,
    engine,
    hostEngine: deps.host ?? null,
    images: createImageStore({
      sql,
      storage: deps.storage,
      engine,
      hostImages: deps.host ?? null,
      log,
      maxImageBytes: settings.maxImageBytes,
      registry: deps.registry,
    }),
    runs: createBuildRuns(sql),
    log,
    settings,
    host: { runnerId: settings.runnerId, hostCapacity: settings.hostCapacity },
    waiters: createWaiters(),
    starting: new Map(),
    stopping: new Set(),
    failures: new Map(),
    // Closed until start() has installed the guard (or been told to go without it).
    hostGuard: { installed: false, copies: false, refusal: 'host guard not checked yet' },
    kick() {
      // Many copies can end in one tick (a culler pass): one admission pass serves them all.
      if (kickPending || work.closed) return;
      kickPending = true;
      setImmediate(() => {
        kickPending = false;
        work.track(
          passes
            .admitWaiting()
            .then(topUpAfterEnds)
            .catch((err) => log.error({ err }, 'admission pass failed')),
        );
      });
    },
  };
  const passes = createAdmissionPasses(ctx, sql, overSpend);
  // A crowd leaving ends hundreds of copies a second, and a top-up reads every live build: the
  // pools are refilled after ends at most once a second (the last end always followed by one).
  const topUpAfterEnds = work.atMostEvery(TOP_UP_AFTER_ENDS_MS, () => passes.topUp(), 'top-up-after-ends');
  // The data plane follows every change to a session's copy (each wakes the session's waiters).
  const routes = settings.dataplane ? createRouteSync(ctx, settings.dataplane, (sessionId) => sessions.activity(sessionId)) : null;
  // A viewer told "running" finds their copy's route in the data plane.
  const sessions = createSessionCopies({ ctx, passes, overSpend, isClosed: () => work.closed, routed: routes?.routed });
  if (routes) {
    const wake = ctx.waiters.wake;
    ctx.waiters.wake = (sessionId) => {
      wake(sessionId);
      if (sessionId) void routes.sync();
    };
  }
  const loops = createRunnerLoops(ctx, passes, work, routes);

  return {
    ctx,
    ...sessions,
    ...loops,
    /** Stops the loops (copies keep running: the next runner adopts them) and gives admission's connection back. */
    async close(): Promise<void> {
      await loops.close();
      passes.close();
    },
  };
}
