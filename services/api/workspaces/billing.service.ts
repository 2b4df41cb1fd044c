import type { Sql } from '../../core/infra/db.js';
import { planOf } from '../../core/rules/plans.js';
import { effectivePlan, workspaceById } from '../../data/workspaces.sql.js';
import { usageOf } from '../../data/workspace-usage.sql.js';

/** getBilling: the plan, what the workspace uses of it, and what it allows. Paid plans cannot be bought yet. */
export async function billingOf(sql: Sql, workspaceId: string) {
  const ws = await workspaceById(sql, workspaceId);
  const plan = planOf(effectivePlan(ws));
  const usage = await usageOf(sql, workspaceId);
  const { name, monthlyUsd, ...allowance } = plan;
  return {
    plan: name,
    kind: ws.kind,
    seats: { used: usage.seats, allowed: plan.seats },
    interval: null,
    // A team without a plan (never bought, or cancelled by the operator) is held to Free's limits.
    status: ws.plan === null ? ('canceled' as const) : ('active' as const),
    currentPeriodEnd: null,
    usage,
    allowance: { ...allowance, monthlyUsd },
    suspended: ws.suspendedAt !== null,
    paidPlans: 'coming-soon' as const,
  };
}
