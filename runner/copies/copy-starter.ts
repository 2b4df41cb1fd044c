import { coldStart } from '../../services/core/infra/metrics.js';
import { EngineError, ExitedAtStart, ImageGone, ImageMissing, type StartHooks } from '../engine/copy-engine.js';
import type { CopySpec } from '@demo-rooms/contract/runner';
import type { RunnerContext } from '../service/runner-context.js';
import { ProbeTimeout, probeHealth } from './health-probe.js';
import type { CopyRow } from '../../services/data/copies.sql.js';
import { failCopy, looksOom, removeResources } from './copy-control.js';
import { CopyExited, StartDeadline, Withdrawn } from './copy-errors.js';
import { recordExit } from './copy-exits.js';
import { startWritesOf } from './start-writes.js';

// Starting one copy: record → engine.start → record → probe → ready, phase by phase (load, then
// the engine's own phases, healthy), each timed. The record exists before the engine is asked
// (admission wrote it), the copy's handle is recorded before it runs (the engine calls `made`),
// and any failure ends the record and has the engine remove what it made: "could not start"
// never leaves a copy behind. A start can be withdrawn at any point (the viewer left): the
// AbortController in ctx.starting reaches every wait, the engine's included.
//
// The whole start has RUNNER_START_DEADLINE_S (KubeSpawner's start_timeout), on every engine: at
// the deadline the signal aborts every wait that listens (the probe, a pod's wait to run) and the
// starter stops waiting for any that does not (an image load shared with other copies, an engine
// call that hangs). The record ends `failed:deadline` then and there, so its slot is free and its
// viewer told at once; what the engine made is removed, and removed again once a call still in
// hand answers (a runner that dies before leaves it to the reconcile: its record has ended).

export interface StartOptions {
  /** When the viewer asked, in this process's clock: the cold-start clock (ms since the epoch). */
  askedAt?: number;
  /** Adopt a start a previous runner process left half-done: the container exists and runs. */
  adoptContainer?: string;
}

/** What a start has got to: its container once made, and the phase it waits on (for the deadline's message). */
interface Progress {
  containerId: string | undefined;
  waitingFor: string;
}

function classify(err: unknown): { why: string; message: string } {
  if (err instanceof StartDeadline) return { why: 'deadline', message: err.message };
  if (err instanceof CopyExited) return { why: err.oom ? 'oom' : 'exited', message: err.message };
  if (err instanceof ProbeTimeout) return { why: 'health', message: err.message };
  if (err instanceof ImageMissing) return { why: 'image', message: err.message };
  if (err instanceof EngineError) return { why: 'engine', message: err.message };
  return { why: 'engine', message: (err as Error)?.message ?? String(err) };
}

export async function startCopy(ctx: RunnerContext, row: CopyRow, opts: StartOptions = {}): Promise<void> {
  const ac = new AbortController();
  ctx.starting.set(row.id, ac);
  const progress: Progress = { containerId: opts.adoptContainer, waitingFor: opts.adoptContainer ? 'the health path' : 'the image' };
  const deadlineMs = ctx.settings.startDeadlineMs;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new StartDeadline(deadlineMs, progress.waitingFor);
      ac.abort(err);
      reject(err);
    }, deadlineMs);
  });
  deadline.catch(() => {});
  const work = startPhases(ctx, row, opts, ac.signal, progress, () => clearTimeout(timer));
  let settled = false;
  const done = () => {
    settled = true;
  };
  work.then(done, done);
  try {
    await Promise.race([work, deadline]);
  } catch (err) {
    const reason = ac.signal.aborted ? ac.signal.reason : err;
    // Past the deadline with a call still in hand: what it makes once it answers goes too, after this removal.
    const late = settled ? null : work.catch(() => {});
    try {
      if (reason instanceof Withdrawn) {
        await removeResources(ctx, row.id);
        return;
      }
      const { why, message } = classify(reason);
      // A copy that exited before it was healthy: its output tells the builder why.
      if (reason instanceof CopyExited)
        await recordExit(
          ctx,
          { ...row, containerId: progress.containerId ?? null },
          { exitCode: reason.exitCode, oom: reason.oom, healthy: false },
        );
      await failCopy(ctx, row.id, why, message);
    } catch (err) {
      // The failure could not be written (Postgres away): engine and record are left as they are,
      // for the reconcile to finish once it can write (a unit made is adopted or failed, a record
      // with none is failed). Removing the unit now would leave a live record billing a copy the
      // engine no longer runs. Never thrown on: starts run unawaited, and a rejection no one
      // handles ends the process (issue 46, a Postgres restart mid-burst).
      ctx.log.warn({ copyId: row.id, err: (err as Error).message }, 'start failed and not recorded; left for the reconcile');
    } finally {
      if (late) void late.then(() => removeResources(ctx, row.id));
    }
  } finally {
    clearTimeout(timer);
    ctx.starting.delete(row.id);
  }
}

/** The start itself: image, engine, health, ready. `healthy` is called once the health path answered (the deadline is met). */
async function startPhases(
  ctx: RunnerContext,
  row: CopyRow,
  opts: StartOptions,
  signal: AbortSignal,
  progress: Progress,
  healthy: () => void,
): Promise<void> {
  const t0 = opts.askedAt ?? Date.now();
  const phases: Record<string, number> = {};
  let last = t0;
  const mark = (name: string) => {
    const now = Date.now();
    phases[name] = now - last;
    last = now;
  };
  const run = await ctx.runs(row.buildId);
  const writes = startWritesOf(ctx.sql);
  let address: string | null = null;
  let containerId = progress.containerId;
  if (!containerId) {
    const image = await ctx.images.ensure(row.buildId);
    mark('load');
    signal.throwIfAborted();
    progress.waitingFor = 'the engine to start it';
    const spec: CopySpec = { ...labelsOfSpec(row), image, start: run.start, env: run.env, ...ctx.settings.copy };
    const hooks: StartHooks = {
      signal,
      phase: mark,
      async made(handle) {
        progress.containerId = handle;
        // Recorded before it runs: from here a crash leaves a record naming the copy.
        if (!(await writes.made(row.id, handle))) throw new Withdrawn('ended while creating');
      },
      async running(at) {
        // Dated at the engine's own start (else now, as it says it runs), not when the engine's
        // call returned nor when the group-committed write gets its turn.
        await writes.started(row.id, at ?? new Date());
      },
    };
    const started = await startInEngine(ctx, row, spec, hooks);
    containerId = progress.containerId = started.handle;
    address = started.address;
  } else {
    const state = await ctx.engine.state(containerId);
    if (!state || state.status === 'exited')
      throw new CopyExited(state?.exitCode ?? null, looksOom(state?.exitCode ?? null, state?.oomKilled ?? false));
    if (!state.address) throw new EngineError('the copy has no address on its network');
    address = state.address;
  }
  progress.waitingFor = 'the health path';
  const port = ctx.settings.copy.port;
  const handle = containerId;
  // The probe's own budget; the start's deadline cuts it short through the signal.
  await probeHealth(`http://${address}:${port}${run.health}`, {
    deadline: Date.now() + ctx.settings.healthTimeoutMs,
    signal,
    // Events tell of an exit within milliseconds; this covers an event stream that is down.
    check: async () => {
      const s = await ctx.engine.state(handle);
      if (!s || s.status === 'exited') throw new CopyExited(s?.exitCode ?? null, looksOom(s?.exitCode ?? null, s?.oomKilled ?? false));
    },
  });
  signal.throwIfAborted();
  healthy();
  mark('healthy');
  const coldStartMs = Date.now() - t0;
  // An adopted start was timed by the process that died, not this one: no figure is better than a wrong one.
  // Every copy's start counts, warm ones too (issue 29, item 7): on a paid plan nearly every
  // viewer takes a warm copy, and counting only the viewers' own starts left the figure empty
  // while the runner timed each start. The viewer's wait on a warm hand-off is not a start. The
  // `ready` event is written by the same statement as the state (copy-start-writes.sql.ts).
  const ready = await writes.ready({ id: row.id, host: address, port, coldStartMs: opts.adoptContainer ? null : coldStartMs, phases });
  if (!ready) throw new Withdrawn('ended while starting');
  if (row.origin === 'viewer' && !opts.adoptContainer) coldStart.observe(coldStartMs / 1000);
  ctx.failures.delete(row.buildId);
  ctx.waiters.wake(ready.sessionId);
  ctx.log.info({ copyId: row.id, buildId: row.buildId, origin: row.origin, coldStartMs, phases }, 'copy ready');
}

/** engine.start, once more when the engine lost the image since it was prepared; its exit at start is the copy's. */
async function startInEngine(ctx: RunnerContext, row: CopyRow, spec: CopySpec, hooks: StartHooks) {
  try {
    try {
      return await ctx.engine.start(spec, hooks);
    } catch (err) {
      if (!(err instanceof ImageGone)) throw err;
      ctx.images.forget(row.buildId);
      return await ctx.engine.start({ ...spec, image: await ctx.images.ensure(row.buildId) }, hooks);
    }
  } catch (err) {
    if (err instanceof ExitedAtStart) throw new CopyExited(err.exitCode, looksOom(err.exitCode, err.oomKilled));
    throw err;
  }
}

const labelsOfSpec = (row: CopyRow) => ({
  copyId: row.id,
  buildId: row.buildId,
  projectId: row.projectId,
  workspaceId: row.workspaceId,
  runnerId: row.runnerId,
});
