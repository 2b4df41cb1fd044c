import { setTimeout as sleep } from 'node:timers/promises';
import type { Sql } from '../services/core/db.js';
import type { Logger } from '../services/core/log.js';
import type { Storage } from '../services/core/storage.js';
import type { CallsReply, CopyView, EnterBody, PrepareReply } from './api.schema.js';
import { createBuildRuns, NoSuchBuild } from './build-runs.js';
import { admitQueued, admitViewer, type Admission } from './copies/admission.js';
import { runCalls, type Call } from './copies/calls.js';
import { copyOfSession, updateCopy, type CopyRow } from './copies/copies.sql.js';
import { onCopyExit, removeResources, resumeCopy, stopCopy } from './copies/copy-control.js';
import { startCopy } from './copies/copy-starter.js';
import { viewOf } from './copies/copy-view.js';
import { createWaiters } from './copies/session-waiters.js';
import type { DockerEngine } from './engine/docker-engine.js';
import { followEngineEvents, type EventFollower } from './engine/engine-events.js';
import { installHostGuard } from './engine/host-guard.js';
import { createImageStore } from './images/image-store.js';
import { cullIdle } from './loops/idle.js';
import { reconcile, updateGauges } from './loops/reconcile.js';
import { topUpWarmPool } from './loops/warm-pool.js';
import type { RunnerContext, RunnerSettings } from './runner-context.js';
import { createSpendCheck } from './spend.js';

// The runner as a service: what its HTTP API does (app.ts), and the loops that keep engine and
// records in step. One instance per container host, named by RUNNER_ID.

/** A request the runner turns down: the status and words go back to the room. */
export class RunnerRefusal extends Error {
  constructor(readonly status: number, message: string, readonly copy?: CopyView) {
    super(message);
    this.name = 'RunnerRefusal';
  }
}

export interface RunnerDeps {
  sql: Sql;
  storage: Storage;
  engine: DockerEngine;
  log: Logger;
  settings: RunnerSettings;
}

export type RunnerService = ReturnType<typeof createRunnerService>;

export function createRunnerService(deps: RunnerDeps) {
  const { sql, engine, log, settings } = deps;
  const timers = new Map<string, NodeJS.Timeout>();
  let events: EventFollower | null = null;
  let closed = false;
  let kickPending = false;
  // Background work (admission passes, top-ups, loop ticks) that close() lets finish.
  const background = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>) => {
    background.add(p);
    const done = () => background.delete(p);
    p.then(done, done);
  };
  const overSpend = createSpendCheck(sql, settings.spendLimitUsd, settings.copyHourUsd);

  const ctx: RunnerContext = {
    sql,
    engine,
    images: createImageStore({ sql, storage: deps.storage, engine, log }),
    runs: createBuildRuns(sql),
    log,
    settings,
    host: { runnerId: settings.runnerId, hostCapacity: settings.hostCapacity },
    waiters: createWaiters(),
    starting: new Map(),
    stopping: new Set(),
    failures: new Map(),
    kick() {
      // Many copies can end in one tick (a culler pass): one admission pass serves them all.
      if (kickPending || closed) return;
      kickPending = true;
      setImmediate(() => {
        kickPending = false;
        track(admitWaiting().then(() => topUp()).catch((err) => log.error({ err }, 'admission pass failed')));
      });
    },
  };

  async function admitWaiting(): Promise<void> {
    const admitted = await admitQueued(sql, ctx.host);
    for (const a of admitted) afterAdmission(a);
    if (admitted.length) ctx.waiters.wakeAll();
  }

  async function topUp(only?: string): Promise<void> {
    await topUpWarmPool(ctx, { only, overSpend: await overSpend() });
  }

  /** Acts on an admission: starts the copy reserved, removes copies given up for it. */
  function afterAdmission(a: Admission, askedAt = Date.now()): void {
    if (a.kind !== 'admitted' && a.kind !== 'claimed') return;
    for (const victim of a.evicted) {
      if (victim.runnerId === settings.runnerId) void removeResources(ctx, victim.id);
      ctx.waiters.wake(victim.sessionId);
    }
    if (a.kind === 'admitted') void startCopy(ctx, a.copy, { askedAt });
    ctx.waiters.wake(a.copy.sessionId);
  }

  async function checkBuild(body: EnterBody) {
    if (settings.workspaces && !settings.workspaces.includes(body.workspaceId)) throw new RunnerRefusal(404, 'this runner does not serve that workspace');
    let run;
    try {
      run = await ctx.runs(body.buildId);
    } catch (err) {
      if (err instanceof NoSuchBuild) throw new RunnerRefusal(404, 'no such build');
      throw err;
    }
    if (run.kind !== 'container' || run.workspaceId !== body.workspaceId || run.projectId !== body.projectId) throw new RunnerRefusal(404, 'no such container build in that project');
  }

  const view = (row: CopyRow | null) => viewOf(sql, row);

  async function touch(row: CopyRow) {
    await updateCopy(sql, row.id, {}, row.state === 'running' || row.state === 'paused' ? ['seenAt', 'activeAt'] : ['seenAt']);
  }

  /** The session's copy, resumed when paused (the viewer is here). A copy that cannot be woken is replaced by a fresh start. */
  async function wake(row: CopyRow, body: EnterBody | null): Promise<CopyView> {
    const resumed = await resumeCopy(ctx, row);
    if (resumed) return view(resumed);
    return enter(row.sessionId!, body ?? { workspaceId: row.workspaceId, projectId: row.projectId, buildId: row.buildId });
  }

  async function enter(sessionId: string, body: EnterBody): Promise<CopyView> {
    const askedAt = Date.now();
    await checkBuild(body);
    const current = await copyOfSession(sql, sessionId);
    if (current && current.state !== 'ended') {
      if (current.buildId !== body.buildId) {
        // The project went live with another build: this viewer moves to it.
        await stopCopy(ctx, current.id, 'build-changed');
      } else {
        await touch(current);
        if (current.state === 'paused') return wake(current, body);
        return view(current);
      }
    } else if (current?.endReason?.startsWith('failed:') && current.buildId === body.buildId && !body.retry
      && current.endedAt && Date.now() - current.endedAt.getTime() < settings.failHoldMs) {
      // Entering again right after "could not start" answers the same: a reload does not start a
      // copy that just failed over and over; the room offers a retry.
      return view(current);
    }
    if (await overSpend()) return { state: 'spend', copyId: null, version: 'spend' };
    const a = await admitViewer(sql, ctx.host, { sessionId, ...body });
    if (a.kind === 'full') return { state: 'full', copyId: null, detail: a.reason, version: `full:${a.reason}` };
    if (a.kind === 'existing') return view(await copyOfSession(sql, sessionId));
    afterAdmission(a, askedAt);
    if (a.kind === 'queued') log.info({ copyId: a.copy.id, workspaceId: body.workspaceId }, 'viewer held back: copy cap reached');
    return view(a.copy);
  }

  /** The session's copy now; `seen` records that the room still asks (a queued viewer who stops asking is let go). */
  async function current(sessionId: string, seen = true): Promise<CopyView> {
    const row = await copyOfSession(sql, sessionId);
    if (seen && row && row.state !== 'ended') await updateCopy(sql, row.id, {}, ['seenAt']);
    return view(row);
  }

  /** Long-poll: the view once it differs from `seen`, or as it is after `waitMs`. Re-read each second, so another runner's changes show too. */
  async function watch(sessionId: string, waitMs = 0, seen?: string): Promise<CopyView> {
    const deadline = Date.now() + waitMs;
    let v = await current(sessionId);
    while (seen !== undefined && v.version === seen && Date.now() < deadline && !closed) {
      await ctx.waiters.wait(sessionId, Math.min(1_000, deadline - Date.now()));
      v = await current(sessionId, false);
    }
    return v;
  }

  async function activity(sessionId: string): Promise<CopyView> {
    const row = await copyOfSession(sql, sessionId);
    if (!row || row.state === 'ended') return view(row);
    // One write per couple of seconds per copy is plenty for a culler that thinks in minutes.
    const every = Math.min(2_000, settings.idlePauseMs / 4);
    if (!row.activeAt || Date.now() - row.activeAt.getTime() > every || row.state !== 'running') await touch(row);
    if (row.state === 'paused') return wake(row, null);
    return view(row);
  }

  async function leave(sessionId: string): Promise<CopyView> {
    const row = await copyOfSession(sql, sessionId);
    if (!row || row.state === 'ended') return view(row);
    const ended = await stopCopy(ctx, row.id, 'left');
    if (row.state === 'queued') ctx.waiters.wakeAll();
    return view(ended ?? (await copyOfSession(sql, sessionId)));
  }

  async function calls(sessionId: string, list: Call[]): Promise<CallsReply> {
    let row = await copyOfSession(sql, sessionId);
    // A copy still starting is waited for: the calls run before the step shows.
    const until = Date.now() + settings.healthTimeoutMs + 5_000;
    while (row && (row.state === 'creating' || row.state === 'starting') && Date.now() < until) {
      await ctx.waiters.wait(sessionId, 1_000);
      row = await copyOfSession(sql, sessionId);
    }
    if (row?.state === 'paused') {
      const resumed = await resumeCopy(ctx, row);
      row = resumed ?? (await copyOfSession(sql, sessionId));
    }
    if (!row || row.state !== 'running') throw new RunnerRefusal(409, 'the session has no running copy', await view(row));
    await touch(row);
    const outcomes = await runCalls({ host: row.host!, port: row.port! }, list, settings.callTimeoutMs);
    return { copy: await view(row), outcomes };
  }

  /** Loads a build's image (best effort, when it goes live) and tops up its warm pool. */
  async function prepare(buildId: string, waitMs = 0): Promise<PrepareReply> {
    const run = await ctx.runs(buildId).catch((err) => {
      if (err instanceof NoSuchBuild) throw new RunnerRefusal(404, 'no such build');
      throw err;
    });
    if (run.kind !== 'container') throw new RunnerRefusal(404, 'not a container build');
    if (settings.workspaces && !settings.workspaces.includes(run.workspaceId)) throw new RunnerRefusal(404, 'this runner does not serve that workspace');
    const loading = ctx.images.ensure(buildId).then(() => topUp(buildId));
    loading.catch(() => {});
    const outcome = await Promise.race([
      loading.then(() => ({ image: 'ready' as const }), (err: Error) => ({ image: 'failed' as const, detail: err.message })),
      sleep(waitMs).then(() => ({ image: 'loading' as const })),
    ]);
    const [warm] = await sql<{ n: number }[]>`
      select count(*)::int as n from runner_copies where build_id = ${buildId} and runner_id = ${settings.runnerId} and session_id is null and state <> 'ended'`;
    return { ...outcome, warm: warm.n };
  }

  function every(ms: number, task: () => Promise<unknown>, name: string) {
    let running = false;
    // Jittered ±10 %, so runners restarted together do not act in step (JupyterHub's poll_jitter).
    const schedule = () => {
      const t = setTimeout(async () => {
        if (closed) return;
        if (!running) {
          running = true;
          const tick = task().catch((err) => log.error({ err, loop: name }, 'runner loop failed'));
          track(tick);
          await tick;
          running = false;
        }
        schedule();
      }, ms * (0.9 + Math.random() * 0.2));
      t.unref();
      timers.set(name, t);
    };
    schedule();
  }

  return {
    ctx,
    enter,
    current,
    watch,
    activity,
    leave,
    calls,
    prepare,
    /** Guard, events, a first reconcile (adopting what a previous run left), then the loops. */
    async start(): Promise<void> {
      await installHostGuard(settings.hostGuard, log);
      events = followEngineEvents({
        engine,
        runnerId: settings.runnerId,
        log,
        onExit: (e) => void onCopyExit(ctx, e).catch((err) => log.error({ err, copyId: e.copyId }, 'exit not handled')),
        onResume: () => void reconcile(ctx).catch((err) => log.error({ err }, 'reconcile failed')),
      });
      await events.ready;
      await reconcile(ctx, { initial: true });
      await admitWaiting();
      every(settings.reconcileMs, async () => {
        await reconcile(ctx);
        await admitWaiting();
        await topUp();
      }, 'reconcile');
      // The culler ticks a few times per idle period and maximum age, at least every 10 s.
      every(Math.min(10_000, settings.idlePauseMs / 4, settings.maxAgeMs / 4), () => cullIdle(ctx), 'idle');
      every(60 * 60 * 1000, () => ctx.images.collect(), 'images');
      every(5_000, () => updateGauges(ctx), 'gauges');
      track(topUp().catch((err) => log.error({ err }, 'warm pool top-up failed')));
    },
    /** Stops the loops and the event stream. Copies are left running: the next runner adopts them. */
    async close(): Promise<void> {
      closed = true;
      for (const t of timers.values()) clearTimeout(t);
      events?.stop();
      ctx.waiters.wakeAll();
      await Promise.race([Promise.allSettled([...background]), sleep(10_000)]);
    },
    /** Everything this runner holds in the engine, removed and its records ended (tests, and draining a host for good). */
    async drain(): Promise<void> {
      // Closed first: no admission pass may start a copy while the others are being removed.
      closed = true;
      for (const t of timers.values()) clearTimeout(t);
      await Promise.race([Promise.allSettled([...background]), sleep(10_000)]);
      for (let round = 0; round < 5; round++) {
        const rows = await sql<{ id: string }[]>`select id from runner_copies where runner_id = ${settings.runnerId} and state <> 'ended'`;
        await Promise.all(rows.map((r) => stopCopy(ctx, r.id, 'drained')));
        const left = await engine.containersOf(settings.runnerId);
        for (const c of left) await engine.remove(c.id);
        for (const n of await engine.networksOf(settings.runnerId)) await engine.removeNetwork(n.name).catch(() => {});
        if (!rows.length && !left.length && !ctx.starting.size) return;
        await sleep(200);
      }
    },
  };
}

