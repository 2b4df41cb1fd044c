import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import { z } from 'zod';
import { containerUsage, monthOf } from '../../services/data/container-usage.sql.js';
import type { WorkerDeps } from '../worker-deps.js';

/** `{month?: 'YYYY-MM'}`: without a month, the current one and the one before (so a month is finalised just after it ends). */
export const UsageJob = z.object({ month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/).optional() });

/** The schedule the workers register for the roll-up (hourly; idempotent upsert). */
export const usageSchedule = { id: 'hourly-usage', every: 60 * 60 * 1000 } as const;

/**
 * usage.rollup: each workspace's container usage of a month, written to usage_months for billing.
 * Computed by the same query as GET /api/usage/containers. Idempotent: a run rewrites the rows
 * of months not yet final; a month rolled up after it ended is marked final and left alone after.
 */
export async function usage(deps: WorkerDeps, job?: Job) {
  const parsed = UsageJob.safeParse(job?.data ?? {});
  if (!parsed.success) throw new UnrecoverableError(`bad usage payload: ${parsed.error.message}`);
  const now = new Date();
  const months = parsed.data.month
    ? [new Date(`${parsed.data.month}-01T00:00:00Z`)]
    : [now, new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1))];
  let rows = 0;
  for (const at of months) {
    const { start, end } = monthOf(at);
    const final = now >= end;
    const workspaces = await deps.sql<{ workspaceId: string }[]>`
      select distinct c.workspace_id from runner_copies c
      where c.asked_at < ${end} and (c.ended_at is null or c.ended_at >= ${start})
        and not exists (select 1 from usage_months u where u.workspace_id = c.workspace_id and u.month = ${start} and u.final)`;
    for (const { workspaceId } of workspaces) {
      const u = await containerUsage(deps.sql, workspaceId, at);
      await deps.sql`
        insert into usage_months (workspace_id, month, runs, container_hours, failed_starts, held_back, median_cold_start_ms, final)
        values (${workspaceId}, ${start}, ${u.runs}, ${u.containerHours}, ${u.failedStarts}, ${u.heldBack}, ${u.medianColdStartMs}, ${final})
        on conflict (workspace_id, month) do update set
          runs = excluded.runs, container_hours = excluded.container_hours, failed_starts = excluded.failed_starts,
          held_back = excluded.held_back, median_cold_start_ms = excluded.median_cold_start_ms,
          final = excluded.final, rolled_at = clock_timestamp()
        where not usage_months.final`;
      rows++;
    }
  }
  await job?.updateProgress(100);
  deps.log.info({ rows }, 'usage rolled up');
  return { rows };
}
