import type { UsageDifference, UsageReconciliation } from '@demo-rooms/contract/runner';
import { usageDifferences } from '../../services/core/infra/metrics.js';
import { liveCopiesOf } from '../../services/data/copies.sql.js';
import { billedCopiesOf, voidUnrun, type BilledCopy } from '../../services/data/usage-reconciliation.sql.js';
import type { UnownedEnd } from '../copies/unowned-copies.js';
import type { EngineRun } from '../engine/copy-engine.js';
import type { RunnerContext } from '../service/runner-context.js';
import { removeOrphans } from './reconcile.js';

// Billed seconds against the engine's own record (issue 46, item 1; docs/runner.md "Usage and
// billing"), for this runner's copies whose life touches [since, now):
//   the engine's record is its units' run times (engine.runs) for copies it still holds, and the
//     record the runner kept on the copy's row when it removed one (copy-control.ts removeResources);
//   a unit no live record owns is ended and its engine time billed to its workspace ('unowned');
//   an ended copy that billed time though the engine never ran it is voided ('never-ran');
//   any other copy whose billed seconds and the engine's differ by more than MAX_DIFF_S is reported.
// Paused time is free and the engine records no pauses (podman's inspect keeps none; Kubernetes
// has no pause): the engine's seconds are its run less the pauses the records hold.
// Both fixes are written once per copy (usage-reconciliation.sql.ts), so a second pass over the same
// window finds nothing to fix. A pass makes at most `maxFixes` fixes; the rest are the next pass's.

/** Billing's tolerance, seconds: the engine and the records each write a moment a few ms apart. */
export const MAX_DIFF_S = 1;
/** Fixes one pass makes at most (removals and writes), so a pass stays short after a burst. */
export const MAX_FIXES = 100;
/** How far back the loop's pass looks: a copy removed is judged by the passes of the next hour. */
export const LOOP_WINDOW_MS = 60 * 60 * 1000;

export async function reconcileUsage(ctx: RunnerContext, opts: { since: Date; maxFixes?: number }): Promise<UsageReconciliation> {
  const runnerId = ctx.settings.runnerId;
  const since = opts.since;
  let fixes = opts.maxFixes ?? MAX_FIXES;
  // The engine first, records second: a record is always written before the engine is asked.
  const runs = await ctx.engine.runs(runnerId);
  const live = new Map((await liveCopiesOf(ctx.sql, runnerId)).map((r) => [r.id, r]));
  const busy = (id: string) => ctx.starting.has(id) || ctx.stopping.has(id);
  const differences: UsageDifference[] = [];

  const orphans = runs.filter((r) => !busy(r.copyId) && (live.get(r.copyId)?.state ?? 'queued') === 'queued');
  const ended: UnownedEnd[] = [];
  const now = orphans.slice(0, fixes);
  fixes -= now.length;
  await removeOrphans(
    ctx,
    now.map((r) => ({ copyId: r.copyId, handle: r.handle, status: null, labels: r.labels })),
    ctx.settings.reconcileMs,
    ended,
  );
  for (const e of ended)
    if (e.seconds !== null)
      differences.push({
        copyId: e.copyId,
        workspaceId: e.workspaceId,
        kind: 'unowned',
        billedSeconds: 0,
        engineSeconds: e.seconds,
        fixed: true,
      });
  let fixesLeft = orphans.length > now.length;

  const until = new Date();
  const window = { start: since, end: until };
  const held = new Map(runs.map((r) => [r.copyId, r]));
  const accounted = new Set(ended.map((e) => e.copyId));
  let copies = 0;
  let within = 0;
  let unjudged = 0;
  let billedSeconds = 0;
  let engineSeconds = 0;
  for (const row of await billedCopiesOf(ctx.sql, runnerId, window)) {
    if (accounted.has(row.copyId)) continue;
    const run = engineRecordOf(row, held.get(row.copyId), busy(row.copyId));
    if (run === undefined) {
      unjudged++;
      continue;
    }
    copies++;
    const engine = run.startedAt ? Math.max(0, seconds(run.startedAt, run.finishedAt ?? until, window) - row.pausedSeconds) : 0;
    billedSeconds += row.billedSeconds;
    engineSeconds += engine;
    const line = { copyId: row.copyId, workspaceId: row.workspaceId, billedSeconds: row.billedSeconds, engineSeconds: engine };
    if (!run.startedAt && row.billedSeconds > 0 && row.state === 'ended') {
      if (fixes <= 0) {
        fixesLeft = true;
        differences.push({ ...line, kind: 'never-ran', fixed: false });
        continue;
      }
      fixes--;
      const voided = await voidUnrun(ctx.sql, row.copyId, 'the engine never ran it (usage reconciliation)');
      differences.push({ ...line, kind: 'never-ran', fixed: voided });
      if (voided) billedSeconds -= row.billedSeconds;
      continue;
    }
    if (Math.abs(row.billedSeconds - engine) > MAX_DIFF_S) differences.push({ ...line, kind: 'differs', fixed: false });
    else within++;
  }
  engineSeconds += ended.reduce((sum, e) => sum + (e.seconds ?? 0), 0);
  billedSeconds += ended.reduce((sum, e) => sum + (e.seconds ?? 0), 0);

  const report: UsageReconciliation = {
    runnerId,
    since: since.toISOString(),
    until: until.toISOString(),
    copies: copies + ended.length,
    within,
    unjudged,
    billedSeconds,
    engineSeconds,
    differences,
    fixesLeft,
  };
  for (const d of differences) usageDifferences.inc({ kind: d.kind });
  if (differences.length) ctx.log.warn({ ...report, differences: differences.slice(0, 20) }, 'usage differs from the engine');
  return report;
}

/** End reasons that say the copy's unit ran: it vanished from a running copy, or the engine reported its exit. */
const RAN = new Set(['vanished', 'exited', 'oom', 'failed:exited', 'failed:oom']);

/**
 * The engine's record of a copy: the unit it holds, else the record kept at its removal; a run
 * that never started when the engine held a unit that never ran, or held none when it was
 * removed. Undefined when there is none to judge by: a live copy whose unit is being made or
 * removed right now (or is gone, or has exited: the reconcile closes it), an ended copy removed
 * before records were kept.
 */
function engineRecordOf(
  row: BilledCopy,
  held: EngineRun | undefined,
  busy: boolean,
): Pick<EngineRun, 'startedAt' | 'finishedAt'> | undefined {
  // A live copy's unit that has ended is the reconcile's to close: judged once its record ends.
  if (row.state !== 'ended') return busy || !held || held.finishedAt ? undefined : held;
  // Closed as vanished, or because the engine said its unit exited: it ran (only a copy that got
  // going is closed so), and its unit went before the runner's removal read it (removed by hand,
  // the engine reset, another removal first): the engine's record went with it, so there is
  // nothing to judge by, and "never ran" would void seconds it did run.
  if (RAN.has(row.endReason ?? '') && !row.engineStartedAt) return undefined;
  if (row.engineCheckedAt) return { startedAt: row.engineStartedAt, finishedAt: row.engineFinishedAt ?? row.engineCheckedAt };
  return undefined;
}

/** Seconds of [from, to) inside the window. */
function seconds(from: Date, to: Date, window: { start: Date; end: Date }): number {
  const a = Math.max(from.getTime(), window.start.getTime());
  const b = Math.min(to.getTime(), window.end.getTime());
  return Math.max(0, b - a) / 1000;
}
