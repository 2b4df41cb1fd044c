import type { Db } from '../core/infra/db.js';
import type { ContainerUsage } from './container-usage.sql.js';
import { correctionMonths } from './usage-statements.sql.js';

// usage_months: each workspace's container usage of a month as billing reads it, rolled up from
// the runner's copy events (workers/usage-rollup). A month marked final is never rewritten.

/**
 * Workspaces whose month [start, end) is not final yet and has something to say: a copy that ran
 * during it, or a closed month among the `correctionMonths` before it (its statement may list
 * corrections of them; issue 46).
 */
export function workspacesToRollUp(db: Db, month: { start: Date; end: Date }) {
  const since = new Date(Date.UTC(month.start.getUTCFullYear(), month.start.getUTCMonth() - correctionMonths, 1));
  return db<{ workspaceId: string }[]>`
    select workspace_id from (
      select c.workspace_id from runner_copies c
      where c.asked_at < ${month.end} and (c.ended_at is null or c.ended_at >= ${month.start})
      union
      select u.workspace_id from usage_months u where u.final and u.month >= ${since} and u.month < ${month.start}
    ) w
    where not exists (select 1 from usage_months u where u.workspace_id = w.workspace_id and u.month = ${month.start} and u.final)`;
}

/** Writes (or rewrites) the workspace's month, unless it is final already: whether it wrote. */
export async function writeUsageMonth(db: Db, workspaceId: string, start: Date, u: ContainerUsage, final: boolean): Promise<boolean> {
  const written = await db`
    insert into usage_months (workspace_id, month, runs, container_hours, failed_starts, held_back, median_cold_start_ms, final)
    values (${workspaceId}, ${start}, ${u.runs}, ${u.containerHours}, ${u.failedStarts}, ${u.heldBack}, ${u.medianColdStartMs}, ${final})
    on conflict (workspace_id, month) do update set
      runs = excluded.runs, container_hours = excluded.container_hours, failed_starts = excluded.failed_starts,
      held_back = excluded.held_back, median_cold_start_ms = excluded.median_cold_start_ms,
      final = excluded.final, rolled_at = clock_timestamp()
    where not usage_months.final`;
  return written.count > 0;
}
