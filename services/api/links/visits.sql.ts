import type { Sql } from '../../core/db.js';
import { planOf, type PlanName } from '../../core/plans.js';

/** The first moment of `at`'s UTC month. */
export const utcMonthStart = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));

/**
 * Viewer-hours the workspace used this UTC month, up to `at`: the part of each visit between the
 * month's start and `at`, summed over every project (deleted ones too: the hours were used).
 * A visit counts up to its end, or while open up to when it was last seen. Previews count nothing.
 * Hours, fractional.
 */
export async function viewerHoursThisMonth(sql: Sql, workspaceId: string, at = new Date()): Promise<number> {
  const from = utcMonthStart(at);
  const [row] = await sql<{ seconds: number }[]>`
    select coalesce(sum(extract(epoch from
             least(coalesce(ended_at, last_seen_at), ${at}::timestamptz) - greatest(started_at, ${from}::timestamptz))), 0)::float8 as seconds
    from visits
    where workspace_id = ${workspaceId} and not preview
      and coalesce(ended_at, last_seen_at) > ${from}::timestamptz and started_at < ${at}::timestamptz`;
  return row.seconds / 3600;
}

/** Whether the month's viewer-hours are used: no new links, and the room takes no new visits. */
export async function viewerHoursUsedUp(sql: Sql, workspaceId: string, plan: PlanName, at = new Date()): Promise<boolean> {
  return (await viewerHoursThisMonth(sql, workspaceId, at)) >= planOf(plan).viewerHours;
}
