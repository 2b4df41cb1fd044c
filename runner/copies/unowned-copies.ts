import { LABEL } from '@demo-rooms/contract/runner';
import { unownedSecondsBilled } from '../../services/core/metrics.js';
import { accountUnowned } from '../../services/data/usage-reconciliation.sql.js';
import type { Listed } from '../engine/copy-engine.js';
import type { RunnerContext } from '../runner-context.js';

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
  const workspaceId = labels[LABEL.workspace] ?? null;
  const end: UnownedEnd = { copyId: c.copyId, workspaceId, unit: c.handle !== null || run !== null, seconds: null };
  if (!run?.startedAt || !workspaceId || !labels[LABEL.project] || !labels[LABEL.build]) return end;
  try {
    end.seconds = await accountUnowned(ctx.sql, {
      copyId: c.copyId,
      runnerId,
      workspaceId,
      projectId: labels[LABEL.project],
      buildId: labels[LABEL.build],
      startedAt: run.startedAt,
      finishedAt: run.finishedAt ?? new Date(),
    });
    if (end.seconds) unownedSecondsBilled.inc(end.seconds);
  } catch (err) {
    // The engine has forgotten the run: its times go to the log, for the operator to account by hand.
    ctx.log.error(
      { copyId: c.copyId, workspaceId, run, err: (err as Error).message },
      'unowned copy removed but its seconds not accounted',
    );
  }
  return end;
}
