import type { Db, Tx } from '../core/infra/db.js';

// The projects' arrangement in a workspace (spec 4.5): its groups, in order, and each project's
// place (ungrouped or in a group, at a position within that list). Every read and write names the
// workspace; changes hold the workspace's arrangement lock, so two at once cannot interleave.

export interface GroupRow {
  id: string;
  name: string;
}

/** A live project with its place; `placed` false for one never arranged (group and position null). */
export interface PlacedProject {
  id: string;
  slug: string;
  name: string;
  createdAt: Date;
  groupId: string | null;
  placed: boolean;
  /** Its card's standing in the community: a draft or no card is `unlisted`. */
  standing: 'unlisted' | 'listed' | 'blocked' | 'pulled' | 'pending';
}

/** Holds the workspace's arrangement for the rest of the transaction. */
export async function lockArrangement(tx: Tx, workspaceId: string) {
  await tx`select pg_advisory_xact_lock(hashtext('arrangement:' || ${workspaceId}))`;
}

export function groupsOf(sql: Db, workspaceId: string) {
  return sql<GroupRow[]>`
    select id, name from project_groups where workspace_id = ${workspaceId} order by position, created_at, id`;
}

/**
 * The workspace's live projects in arrangement order within each list: the unplaced first,
 * newest first, then the placed by position.
 */
export function placedProjectsOf(sql: Db, workspaceId: string) {
  return sql<PlacedProject[]>`
    select p.id, p.slug, p.name, p.created_at, pl.group_id, pl.project_id is not null as placed,
           case when c.status is null or c.status = 'draft' then 'unlisted' else c.status end as standing
    from projects p left join project_places pl on pl.project_id = p.id and pl.workspace_id = p.workspace_id
      left join cards c on c.project_id = p.id
    where p.workspace_id = ${workspaceId} and p.deleted_at is null
    order by pl.project_id is not null, pl.position, p.created_at desc, p.id`;
}

/** Writes every place and the groups' order at once: each list's ids in order. */
export async function writeArrangement(
  tx: Tx,
  workspaceId: string,
  layout: { ungrouped: string[]; groups: { id: string; projects: string[] }[] },
) {
  const lists = [
    { groupId: null as string | null, ids: layout.ungrouped },
    ...layout.groups.map((g) => ({ groupId: g.id as string | null, ids: g.projects })),
  ];
  const rows = lists.flatMap(({ groupId, ids }) =>
    ids.map((projectId, position) => ({ project_id: projectId, workspace_id: workspaceId, group_id: groupId, position })),
  );
  await tx`delete from project_places where workspace_id = ${workspaceId}`;
  if (rows.length) await tx`insert into project_places ${tx(rows, 'project_id', 'workspace_id', 'group_id', 'position')}`;
  const order = layout.groups.map((g, position) => ({ id: g.id, position }));
  if (order.length) {
    await tx`
      update project_groups g set position = o.position
      from (select unnest(${order.map((o) => o.id)}::uuid[]) as id, unnest(${order.map((o) => o.position)}::int[]) as position) o
      where g.id = o.id and g.workspace_id = ${workspaceId}`;
  }
}

export async function countGroups(tx: Db, workspaceId: string): Promise<number> {
  const [row] = await tx<{ n: number }[]>`select count(*)::int as n from project_groups where workspace_id = ${workspaceId}`;
  return row.n;
}

/** Adds a group after the others. */
export async function insertGroup(tx: Tx, workspaceId: string, name: string): Promise<GroupRow> {
  const [row] = await tx<GroupRow[]>`
    insert into project_groups (workspace_id, name, position)
    values (${workspaceId}, ${name}, (select coalesce(max(position) + 1, 0) from project_groups where workspace_id = ${workspaceId}))
    returning id, name`;
  return row;
}

/** Renames the workspace's group; false when it has no such group. */
export async function renameGroupRow(sql: Db, workspaceId: string, groupId: string, name: string): Promise<boolean> {
  const rows = await sql`update project_groups set name = ${name} where id = ${groupId} and workspace_id = ${workspaceId} returning id`;
  return rows.length > 0;
}

export async function deleteGroupRow(tx: Tx, workspaceId: string, groupId: string): Promise<void> {
  await tx`delete from project_groups where id = ${groupId} and workspace_id = ${workspaceId}`;
}
