import { LABEL } from '@demo-rooms/contract/runner';
import { unownedSecondsBilled } from '../../services/core/infra/metrics.js';
import { accountUnowned, keepEngineRun } from '../../services/data/usage-reconciliation.sql.js';
import type { EngineRun, Listed } from '../engine/copy-engine.js';
import type { RunnerContext } from '../service/runner-context.js';
import { throughOutage } from './through-outage.js';

// A copy the engine runs that no live record owns (a start that outlived its record, a record
// ended by another runner, a container made by hand with the runner's labels) is ended, and the
// engine time no record billed is accounted to the workspace its labels name, marked 'unowned'
// (services/data/usage-reconciliation.sql.ts): engine time is never unbilled, and never billed twice.

/** What was ended: the copy, its workspace, and the seconds newly billed to it (null: none). */
export interface UnownedEnd {
  copyId: string;
  workspaceId: string | null;
  /** Whether the engine held a unit (a container, a pod) for it, not only leftovers of a start. */
  unit: boolean;
  seconds: number | null;
}

/** Removes what the engine holds for the copy, then accounts the run the engine reported. Throws when the removal fails. */
export async function endUnowned(ctx: RunnerContext, c: Listed): Promise<UnownedEnd> {
  const runnerId = ctx.settings.runnerId;
  const run = await ctx.engine.stop({ runnerId, copyId: c.copyId, handle: c.handle });
  const labels = run?.labels ?? c.labels;
  const end: UnownedEnd = {
    copyId: c.copyId,
    workspaceId: labels[LABEL.workspace] ?? null,
    unit: c.handle !== null || run !== null,
    seconds: null,
  };
  if (!run) return end;
  end.seconds = await accountRun(ctx, { ...run, copyId: c.copyId, labels }, runnerId);
  // An ended record keeps the engine's record too, though nothing was left to bill: a runner
  // killed between its stop's write and its removal's keeping leaves the unit for this removal,
  // which alone read the engine (issue 46; without it the copy has no engine record at all).
  await throughOutage(() => keepEngineRun(ctx.sql, c.copyId, run));
  return end;
}

/**
 * Accounts a removed unit's engine time that no record billed to the workspace its labels name
 * (runnerId: the runner whose unit it was); the seconds newly billed, or null.
 */
export async function accountRun(ctx: RunnerContext, run: EngineRun, runnerId: string): Promise<number | null> {
  const labels = run.labels;
  const workspaceId = labels[LABEL.workspace] ?? null;
  const startedAt = run.startedAt;
  const finishedAt = run.finishedAt ?? new Date();
  if (!startedAt || !workspaceId || !labels[LABEL.project] || !labels[LABEL.build]) return null;
  try {
    const seconds = await throughOutage(() =>
      accountUnowned(ctx.sql, {
        copyId: run.copyId,
        runnerId,
        workspaceId,
        projectId: labels[LABEL.project],
        buildId: labels[LABEL.build],
        startedAt,
        finishedAt,
      }),
    );
    if (seconds) unownedSecondsBilled.inc(seconds);
    return seconds;
  } catch (err) {
    // The engine has forgotten the run: its times go to the log, for the operator to account by hand.
    ctx.log.error(
      { copyId: run.copyId, workspaceId, run, err: (err as Error).message },
      'unowned copy removed but its seconds not accounted',
    );
    return null;
  }
}
