import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import { z } from 'zod';
import type { Db } from '../../services/core/infra/db.js';
import { containerUsage, monthOf } from '../../services/data/container-usage.sql.js';
import { emitMonthClosed } from '../../services/data/product-events.sql.js';
import { usageStatement } from '../../services/data/statement-figures.js';
import { workspacesToRollUp, writeUsageMonth } from '../../services/data/usage-months.sql.js';
import { freezeStatement, type MonthBounds } from '../../services/data/usage-statements.sql.js';
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
 * Closing a month also freezes its statement and tells the workspace (usage.month_closed), in the
 * same transaction (issue 46).
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
      if (final) await closeMonthOnce(deps, workspaceId, { start, end });
      else await writeUsageMonth(deps.sql, workspaceId, start, await containerUsage(deps.sql, workspaceId, at), false);
      rows++;
    }
  }
  await job?.updateProgress(100);
  deps.log.info({ rows }, 'usage rolled up');
  return { rows };
}

/**
 * closeMonth, where another run closing the same month at the same moment (repeatable read:
 * Postgres refuses the second writer, 40001) leaves it to that run: it wrote the row, the
 * statement and the event once.
 */
async function closeMonthOnce(deps: WorkerDeps, workspaceId: string, month: MonthBounds) {
  try {
    await closeMonth(deps, workspaceId, month);
  } catch (err) {
    if ((err as { code?: string }).code !== '40001') throw err;
    deps.log.info({ workspaceId, month: month.start }, 'month closed by another run');
  }
}

/**
 * Closes the workspace's month: the final usage_months row, the frozen statement and the
 * usage.month_closed event, all or none. Repeatable read, so the row and the statement are
 * computed from one snapshot of copy_events and cannot differ. A month another run closed first
 * writes nothing (writeUsageMonth leaves a final row alone), so the event goes once.
 */
async function closeMonth(deps: WorkerDeps, workspaceId: string, month: MonthBounds) {
  await deps.sql.begin('isolation level repeatable read', async (tx: Db) => {
    const u = await containerUsage(tx, workspaceId, month.start);
    if (!(await writeUsageMonth(tx, workspaceId, month.start, u, true))) return;
    await freezeStatement(tx, workspaceId, month);
    const s = await usageStatement(tx, workspaceId, month, deps.config.RUNNER_COPY_HOUR_USD, 0);
    await emitMonthClosed(tx, workspaceId, {
      month: s.month,
      copies: s.projects.reduce((n, p) => n + p.copies, 0),
      containerSeconds: s.containerSeconds,
      containerHours: s.containerHours,
      correctionSeconds: s.correctionSeconds,
      viewerHours: s.viewerHours,
      spendUsd: s.spendUsd,
    });
  });
}
