import type { Db, Sql } from '../core/db.js';
import { isUuid } from '../core/ids.js';
import { notFound } from '../core/errors.js';

export interface ProjectRow {
  id: string;
  workspaceId: string;
  slug: string;
  name: string;
  visibility: 'private' | 'public';
  liveBuildId: string | null;
  requireEmail: boolean;
  takenDownAt: Date | null;
  overLimitAt: Date | null;
  createdAt: Date;
}

/** How long a deleted project's slug stays held (spec 2.2), in days. */
export const slugHoldDays = 30;

/** The project with this id in this workspace, not deleted; 404 otherwise (foreign ids look missing). */
export async function projectIn(sql: Sql, workspaceId: string, projectId: string): Promise<ProjectRow> {
  if (!isUuid(projectId)) throw notFound();
  const [row] = await sql<ProjectRow[]>`
    select * from projects where id = ${projectId} and workspace_id = ${workspaceId} and deleted_at is null`;
  if (!row) throw notFound();
  return row;
}

export function projectsIn(sql: Sql, workspaceId: string) {
  return sql<ProjectRow[]>`
    select * from projects where workspace_id = ${workspaceId} and deleted_at is null
    order by created_at desc, id`;
}

/** Whether a slug is in use by any project, or was deleted less than 30 days ago, in any workspace. */
export async function slugHeld(sql: Db, slug: string): Promise<boolean> {
  const [row] = await sql`
    select 1 from projects
    where slug = ${slug} and (deleted_at is null or deleted_at > now() - make_interval(days => ${slugHoldDays}))
    limit 1`;
  return Boolean(row);
}

export async function countProjects(sql: Db, workspaceId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from projects where workspace_id = ${workspaceId} and deleted_at is null`;
  return row.n;
}
