import { failedStarts } from '../../services/core/infra/metrics.js';
import type { RunnerContext } from '../service/runner-context.js';
import { CopyExited, Withdrawn } from './copy-errors.js';
import { recordExit } from './copy-exits.js';
import { probeHealth } from './health-probe.js';
import { copyById, transition, type CopyRow, type CopyState } from '../../services/data/copies.sql.js';
import { endWritesOf } from './end-writes.js';
import { throughOutage } from './through-outage.js';
import type { EngineRun } from '../engine/copy-engine.js';

// Stopping, pausing and resuming copies. Every path writes the record first and touches the
// engine second: a runner that dies in between leaves a record that says what to do, and the
// next reconcile does it (a container whose record ended is removed).

/** Exit 137 is SIGKILL: with no stop asked for, that is the kernel's OOM killer (podman on cgroup v1 does not always say so). */
export const looksOom = (exitCode: number | null, oomKilled: boolean) => oomKilled || exitCode === 137;

/**
 * Removes what the copy has in the engine, keeping the engine's record of its run on the copy's
 * row first thing after (the engine forgets a removed unit): what the usage reconciliation
 * compares the billed seconds with (loops/usage-reconcile.ts). `closingSeq`: the seq of the
 * `stop`/`fail` event the caller has just written, dated then at the engine's own finish
 * (keepEngineRun).
 */
export async function removeResources(ctx: RunnerContext, copyId: string, closingSeq: number | null = null): Promise<void> {
  try {
    // Kept as soon as the engine has read it, before it forgets the unit (a runner killed between
    // the removal and a later keeping left a copy with no engine record), and once removed unless
    // that keeping already holds it: an engine that reads it only then, a removal shared with
    // another path (whose read this call never saw), a keeping that failed.
    let kept: EngineRun | undefined;
    const keep = async (run: EngineRun | null) => {
      await throughOutage(() => endWritesOf(ctx.sql).engineRun({ copyId, run, closingSeq }));
      if (run) kept = run;
    };
    const run = await removal(ctx, copyId, keep);
    if (!run || run !== kept) await keep(run);
  } catch (err) {
    ctx.log.warn({ copyId, err: (err as Error).message }, 'copy not removed');
  }
}

const removing = new Map<string, Promise<EngineRun | null>>();

/**
 * The engine's removal of the copy, one at a time per copy: a second path that ends the same copy
 * meanwhile (its exit seen by the exit follower and by the reconcile) shares the first's, and its
 * record. Two side by side would each read the engine: the later one finds the unit the earlier
 * removed and would keep "the engine held nothing", voiding seconds the copy ran (issue 46).
 */
function removal(ctx: RunnerContext, copyId: string, read: (run: EngineRun) => Promise<void>): Promise<EngineRun | null> {
  let p = removing.get(copyId);
  if (!p) {
    p = ctx.engine.stop({ runnerId: ctx.settings.runnerId, copyId }, { read }).finally(() => removing.delete(copyId));
    removing.set(copyId, p);
  }
  return p;
}

/** Ends a copy for `reason` (left, idle, max-age, …) and removes what it has in the engine. */
export async function stopCopy(
  ctx: RunnerContext,
  copyId: string,
  reason: string,
  kind: 'stop' | 'fail' = 'stop',
): Promise<CopyRow | null> {
  ctx.stopping.add(copyId);
  try {
    ctx.starting.get(copyId)?.abort(new Withdrawn(reason));
    const ended = await endWritesOf(ctx.sql).ended({ id: copyId, reason, kind, detail: reason });
    await removeResources(ctx, copyId, ended?.seq ?? null);
    if (ended) {
      ctx.waiters.wake(ended.sessionId);
      if (ended.state === 'ended') ctx.kick();
    }
    return ended;
  } finally {
    ctx.stopping.delete(copyId);
  }
}

/**
 * Marks a copy that could not start as failed ("could not start"), counts it, and cleans up. The
 * viewer is told before the engine is asked to remove anything (a removal may be slow, or hang
 * with the engine that made the start fail); waiting viewers are let in once it is done.
 *
 * A copy found live in a state not in `from` is not failed and keeps what it has in the engine:
 * the caller judged it from a moment ago (the reconcile's list of the engine, a start that has
 * since finished), and it runs now. Its removal would kill a running copy behind its record's
 * back (exit 137, then closed `oom` with its container gone: issue 46).
 */
export async function failCopy(
  ctx: RunnerContext,
  copyId: string,
  why: string,
  message: string,
  from: readonly CopyState[] = ['creating', 'starting', 'warm', 'running'],
): Promise<void> {
  const ended = await transition(ctx.sql, copyId, from, 'ended', {
    set: { endReason: `failed:${why}` },
    event: 'fail',
    detail: message.slice(0, 500),
  });
  if (ended) {
    failedStarts.inc({ reason: why });
    ctx.waiters.wake(ended.sessionId);
    const f = ctx.failures.get(ended.buildId) ?? { count: 0, until: 0 };
    f.count++;
    f.until = Date.now() + Math.min(30_000 * 2 ** (f.count - 1), 600_000);
    ctx.failures.set(ended.buildId, f);
    ctx.log.warn({ copyId, buildId: ended.buildId, why, message }, 'copy could not start');
  }
  const now = ended ? null : await copyById(ctx.sql, copyId);
  if (now && now.state !== 'ended') return;
  await removeResources(ctx, copyId, ended?.seq ?? null);
  if (ended) ctx.kick();
}

export async function pauseCopy(ctx: RunnerContext, row: CopyRow): Promise<void> {
  if (!row.containerId || ctx.stopping.has(row.id) || !ctx.engine.pause) return;
  // Dated when the engine has it frozen, not after the record's write waits its turn.
  let at: Date;
  try {
    await ctx.engine.pause(row.containerId);
    at = new Date();
  } catch (err) {
    ctx.log.warn({ copyId: row.id, err: (err as Error).message }, 'pause failed; the copy is closed');
    await stopCopy(ctx, row.id, 'vanished');
    return;
  }
  const paused = await transition(ctx.sql, row.id, ['running'], 'paused', { now: ['pausedAt'], event: 'pause', at });
  // Activity may have raced the pause: a viewer came back in between, so the copy runs again.
  if (!paused) await ctx.engine.resume?.(row.containerId).catch(() => {});
  else ctx.waiters.wake(row.sessionId);
}

const resuming = new Map<string, Promise<CopyRow | null>>();

/**
 * Wakes a paused copy: unpause, re-probe the health path, route again. Resolves with the running
 * copy, or null when it could not be woken (it is then closed; the caller starts a fresh one).
 * Concurrent calls for one copy share one resume.
 */
export function resumeCopy(ctx: RunnerContext, row: CopyRow): Promise<CopyRow | null> {
  let p = resuming.get(row.id);
  if (!p) {
    p = (async () => {
      const started = Date.now();
      try {
        if (!row.containerId || !row.host || !row.port) throw new Error('no container recorded');
        if (!ctx.engine.resume) throw new Error('the engine cannot resume a copy');
        await ctx.engine.resume(row.containerId);
        // Billed from the moment the engine runs it again, as a start is, not once it answers.
        const at = new Date();
        const run = await ctx.runs(row.buildId);
        await probeHealth(`http://${row.host}:${row.port}${run.health}`, { deadline: Date.now() + ctx.settings.resumeTimeoutMs });
        const resumed = await transition(ctx.sql, row.id, ['paused'], 'running', { now: ['activeAt'], event: 'resume', at });
        ctx.log.info({ copyId: row.id, ms: Date.now() - started }, 'copy resumed');
        ctx.waiters.wake(row.sessionId);
        return resumed ?? (await copyById(ctx.sql, row.id));
      } catch (err) {
        ctx.log.warn({ copyId: row.id, err: (err as Error).message }, 'copy could not be resumed; closing it');
        await stopCopy(ctx, row.id, 'vanished');
        return null;
      }
    })().finally(() => resuming.delete(row.id));
    resuming.set(row.id, p);
  }
  return p;
}

/**
 * The engine says a copy's container died. Starting: fail fast. Otherwise it crashed: its exit
 * is recorded and the copy closed (`exited`/`oom`, which the room shows as "the demo stopped").
 */
export async function onCopyExit(ctx: RunnerContext, e: { copyId: string; exitCode: number | null; oom: boolean }): Promise<void> {
  if (ctx.stopping.has(e.copyId)) return;
  const start = ctx.starting.get(e.copyId);
  if (start) {
    start.abort(new CopyExited(e.exitCode, looksOom(e.exitCode, e.oom)));
    return;
  }
  const row = await copyById(ctx.sql, e.copyId);
  if (!row || row.state === 'ended' || row.runnerId !== ctx.settings.runnerId) return;
  const oom = looksOom(e.exitCode, e.oom);
  const reason = oom ? 'oom' : 'exited';
  // Its output is read before the container goes, for the builder (GET /api/projects/:id/exits).
  const healthy = row.state !== 'queued' && row.state !== 'creating' && row.state !== 'starting';
  await recordExit(ctx, row, { exitCode: e.exitCode, oom, healthy });
  if (!healthy) await failCopy(ctx, row.id, reason, new CopyExited(e.exitCode, oom).message);
  else await stopCopy(ctx, row.id, reason);
}
