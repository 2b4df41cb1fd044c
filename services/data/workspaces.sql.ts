import type { Db, Sql } from '../core/infra/db.js';
import { planOf, type Plan, type PlanName } from '../core/rules/plans.js';

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
  const [row] = await sql<
    Omit<WorkspaceRow, 'role'>[]
  >`select id, name, kind, plan, suspended_at from workspaces where id = ${workspaceId}`;
  return row;
}

/** A team has no plan until one is bought; until then it is held to Free's limits. */
export const effectivePlan = (w: { plan: PlanName | null }): PlanName => w.plan ?? 'free';

/** The plan a workspace is held to now. */
export async function planNameOf(sql: Db, workspaceId: string): Promise<PlanName> {
  return effectivePlan(await workspaceById(sql, workspaceId));
}

/** The plan each workspace is held to now, by id (one read for a batch of them). */
export async function planNamesOf(db: Db, workspaceIds: string[]): Promise<Map<string, PlanName>> {
  const rows = await db<{ id: string; plan: PlanName | null }[]>`select id, plan from workspaces where id = any(${workspaceIds}::uuid[])`;
  return new Map(rows.map((r) => [r.id, effectivePlan(r)]));
}

/** The plan a workspace is held to now, with its numbers and switches (its `name` for a refusal). */
export async function planFor(sql: Db, workspaceId: string): Promise<Plan> {
  return planOf(await planNameOf(sql, workspaceId));
}

/** The personal workspace of the person with this email; null when there is no such person. */
export async function personalWorkspaceOf(db: Db, email: string): Promise<string | null> {
  const [row] = await db<{ workspaceId: string }[]>`
    select pw.workspace_id from personal_workspaces pw join people p on p.id = pw.person_id where p.email = ${email.trim().toLowerCase()}`;
  return row?.workspaceId ?? null;
}

/** A workspace not deleted, by id; null when there is none. */
export async function liveWorkspaceKind(db: Db, workspaceId: string): Promise<{ id: string; kind: 'personal' | 'team' } | null> {
  const [row] = await db<
    { id: string; kind: 'personal' | 'team' }[]
  >`select id, kind from workspaces where id = ${workspaceId} and deleted_at is null`;
  return row ?? null;
}

/** The plan the workspace pays for; null for a team without one. */
export async function setWorkspacePlan(db: Db, workspaceId: string, plan: string | null): Promise<void> {
  await db`update workspaces set plan = ${plan} where id = ${workspaceId}`;
}

/** The platform suspends the workspace (every project paused) or lifts it. */
export async function setWorkspaceSuspended(db: Db, workspaceId: string, suspended: boolean): Promise<void> {
  await db`update workspaces set suspended_at = ${suspended ? db`now()` : null} where id = ${workspaceId}`;
}
