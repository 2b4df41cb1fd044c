import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import { z } from 'zod';
import { containerUsage, monthOf } from '../../services/data/container-usage.sql.js';
import { workspacesToRollUp, writeUsageMonth } from '../../services/data/usage-months.sql.js';
import type { WorkerDeps } from '../worker-deps.js';

/** `{month?: 'YYYY-MM'}`: without a month, the current one and the one before (so a month is finalised just after it ends). */
export const UsageJob = z.object({
  month: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/)
    .optional(),
});

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
    const workspaces = await workspacesToRollUp(deps.sql, { start, end });
    for (const { workspaceId } of workspaces) {
      const u = await containerUsage(deps.sql, workspaceId, at);
      await writeUsageMonth(deps.sql, workspaceId, start, u, final);
      rows++;
    }
  }
  await job?.updateProgress(100);
  deps.log.info({ rows }, 'usage rolled up');
  return { rows };
}
