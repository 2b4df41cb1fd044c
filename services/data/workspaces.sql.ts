import type { Db, Sql } from '../core/db.js';
import { planOf, type Plan, type PlanName } from '../core/plans.js';

export interface WorkspaceRow {
  id: string;
  name: string;
  kind: 'personal' | 'team';
  plan: PlanName | null;
  suspendedAt: Date | null;
  role: 'owner' | 'member';
}

/** The person's workspaces: their own first, then teams in the order they joined. */
export function workspacesOf(sql: Sql, personId: string) {
  return sql<WorkspaceRow[]>`
    select w.id, w.name, w.kind, w.plan, w.suspended_at, m.role
    from memberships m join workspaces w on w.id = m.workspace_id
    where m.person_id = ${personId}
    order by (w.kind = 'personal') desc, m.joined_at, w.id`;
}

export async function workspaceById(sql: Db, workspaceId: string): Promise<Omit<WorkspaceRow, 'role'>> {
  const [row] = await sql<Omit<WorkspaceRow, 'role'>[]>`select id, name, kind, plan, suspended_at from workspaces where id = ${workspaceId}`;
  return row;
}

/** A team has no plan until one is bought; until then it is held to Free's limits. */
export const effectivePlan = (w: { plan: PlanName | null }): PlanName => w.plan ?? 'free';

/** The plan a workspace is held to now. */
export async function planNameOf(sql: Db, workspaceId: string): Promise<PlanName> {
  return effectivePlan(await workspaceById(sql, workspaceId));
}

/** The plan a workspace is held to now, with its numbers and switches (its `name` for a refusal). */
export async function planFor(sql: Db, workspaceId: string): Promise<Plan> {
  return planOf(await planNameOf(sql, workspaceId));
}
