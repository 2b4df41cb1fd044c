import type { Db, Sql } from '../core/infra/db.js';
import { isUuid } from '../core/infra/ids.js';
import type { PlanName } from '../core/rules/plans.js';
import type { WorkspaceRow } from './workspaces.sql.js';

// Teams and their members (spec 2.6, 4.3). Every change to who is in a team, or with which role,
// holds the team's row first (`lockTeam`), so that two owners demoting each other, or two people
// taking the last seat, are decided one after the other.

export type Role = 'owner' | 'member';

export interface MemberRow {
  personId: string;
  name: string;
  email: string;
  photoHash: string | null;
  role: Role;
  joinedAt: Date;
}

/** The caller's place in a workspace they belong to (a deleted team has no members); null otherwise. */
export async function membershipIn(sql: Db, workspaceId: string, personId: string): Promise<WorkspaceRow | null> {
  if (!isUuid(workspaceId)) return null;
  const [row] = await sql<WorkspaceRow[]>`
    select w.id, w.name, w.kind, w.plan, w.suspended_at, m.role
    from memberships m join workspaces w on w.id = m.workspace_id
    where m.workspace_id = ${workspaceId} and m.person_id = ${personId} and w.deleted_at is null`;
  return row ?? null;
}

/** Holds a live workspace's row until the transaction ends; null when there is none. */
export async function lockTeam(
  tx: Db,
  workspaceId: string,
): Promise<{ id: string; name: string; kind: 'personal' | 'team'; plan: PlanName | null } | null> {
  const [row] = await tx<{ id: string; name: string; kind: 'personal' | 'team'; plan: PlanName | null }[]>`
    select id, name, kind, plan from workspaces where id = ${workspaceId} and deleted_at is null for update`;
  return row ?? null;
}

/** The members, owners first, then in the order they joined. */
export function membersOf(sql: Db, workspaceId: string) {
  return sql<MemberRow[]>`
    select p.id as person_id, p.name, p.email, p.photo_hash, m.role, m.joined_at
    from memberships m join people p on p.id = m.person_id
    where m.workspace_id = ${workspaceId}
    order by (m.role = 'owner') desc, m.joined_at, p.id`;
}

export async function ownerCount(tx: Db, workspaceId: string): Promise<number> {
  const [row] = await tx<
    { n: number }[]
  >`select count(*)::int as n from memberships where workspace_id = ${workspaceId} and role = 'owner'`;
  return row.n;
}

export async function memberCount(tx: Db, workspaceId: string): Promise<number> {
  const [row] = await tx<{ n: number }[]>`select count(*)::int as n from memberships where workspace_id = ${workspaceId}`;
  return row.n;
}

/** Seats taken: the members, and the invitations still waiting (each holds one). */
export async function seatsTaken(tx: Db, workspaceId: string): Promise<number> {
  const [row] = await tx<{ n: number }[]>`
    select (select count(*) from memberships where workspace_id = ${workspaceId})
         + (select count(*) from invitations where workspace_id = ${workspaceId}
              and used_at is null and revoked_at is null and expires_at > now()) as n`;
  return Number(row.n);
}

/** Whether the person owns a team that has no plan (a second one is refused as unlicensed). */
export async function ownsTeamWithoutPlan(sql: Db, personId: string): Promise<boolean> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from memberships m join workspaces w on w.id = m.workspace_id
    where m.person_id = ${personId} and m.role = 'owner' and w.kind = 'team' and w.plan is null and w.deleted_at is null`;
  return row.n > 0;
}

/** A new team (no plan) with `personId` as its owner. */
export async function insertTeam(tx: Db, personId: string, name: string): Promise<string> {
  const [ws] = await tx<{ id: string }[]>`insert into workspaces (name, kind, plan) values (${name}, 'team', null) returning id`;
  await tx`insert into memberships (workspace_id, person_id, role) values (${ws.id}, ${personId}, 'owner')`;
  return ws.id;
}

export async function renameWorkspaceRow(tx: Db, workspaceId: string, name: string) {
  await tx`update workspaces set name = ${name} where id = ${workspaceId}`;
}

export async function setRoleRow(tx: Db, workspaceId: string, personId: string, role: Role) {
  await tx`update memberships set role = ${role} where workspace_id = ${workspaceId} and person_id = ${personId}`;
}

/** Takes the person out of the team; sessions that had it active fall back on their next request. */
export async function removeMembershipRow(tx: Db, workspaceId: string, personId: string) {
  await tx`delete from memberships where workspace_id = ${workspaceId} and person_id = ${personId}`;
  await tx`update sessions set active_workspace_id = null where person_id = ${personId} and active_workspace_id = ${workspaceId}`;
}

export async function addMemberRow(tx: Db, workspaceId: string, personId: string, role: Role) {
  await tx`insert into memberships (workspace_id, person_id, role) values (${workspaceId}, ${personId}, ${role}) on conflict do nothing`;
}

/** The workspace a session acts on from its next request (spec 1; the switch is issue 16's). */
export async function activateWorkspace(sql: Db, sessionId: string, workspaceId: string) {
  await sql`update sessions set active_workspace_id = ${workspaceId} where id = ${sessionId}`;
}

/** The slugs of the workspace's live projects (at most `limit`, in slug order) and how many there are: a team is deleted only without one. */
export async function liveProjectsOf(tx: Db, workspaceId: string, limit = 3): Promise<{ slugs: string[]; count: number }> {
  const rows = await tx<{ slug: string; n: number }[]>`
    select slug, count(*) over ()::int as n from projects
    where workspace_id = ${workspaceId} and deleted_at is null and live_build_id is not null
    order by slug limit ${limit}`;
  return { slugs: rows.map((r) => r.slug), count: rows[0]?.n ?? 0 };
}

/**
 * A team's deletion: its projects are deleted as deleteProject does (the sweep purges their bytes;
 * their slugs stay held), its invitations stop, its members go (each keeps their own workspace),
 * and the row stays, marked deleted.
 */
export async function deleteTeamRows(tx: Db, workspaceId: string) {
  await tx`update projects set deleted_at = now() where workspace_id = ${workspaceId} and deleted_at is null`;
  await tx`update invitations set revoked_at = now() where workspace_id = ${workspaceId} and used_at is null and revoked_at is null`;
  await tx`delete from memberships where workspace_id = ${workspaceId}`;
  await tx`update sessions set active_workspace_id = null where active_workspace_id = ${workspaceId}`;
  await tx`update workspaces set deleted_at = now() where id = ${workspaceId}`;
}

/** The people who share a workspace with `personId` include `otherId` (photos are theirs to see). */
export async function sharesWorkspace(sql: Sql, personId: string, otherId: string): Promise<boolean> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from memberships a join memberships b on a.workspace_id = b.workspace_id
    where a.person_id = ${personId} and b.person_id = ${otherId}`;
  return row.n > 0;
}

/** The person's role in the workspace; null when they are not a member. */
export async function roleIn(db: Db, workspaceId: string, personId: string): Promise<Role | null> {
  const [row] = await db<{ role: Role }[]>`select role from memberships where workspace_id = ${workspaceId} and person_id = ${personId}`;
  return row?.role ?? null;
}
