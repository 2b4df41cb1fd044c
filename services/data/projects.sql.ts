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

/** The project with this id, whatever its workspace or state; null when there is none. */
export async function projectById(sql: Db, projectId: string): Promise<ProjectRow | null> {
  const [row] = await sql<ProjectRow[]>`select * from projects where id = ${projectId}`;
  return row ?? null;
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
    union all
    select 1 from slug_holds where slug = ${slug} and held_until > now()
    limit 1`;
  return Boolean(row);
}

/**
 * Before projects' rows go for good (their account deleted), their slugs are held as long as a
 * deleted project's would be: 30 days from its deletion, or from now for one still live.
 */
export async function holdSlugsOf(tx: Db, workspaceIds: string[]) {
  await tx`
    insert into slug_holds (slug, held_until)
    select slug, max(coalesce(deleted_at, now())) + make_interval(days => ${slugHoldDays}) from projects
    where workspace_id = any(${workspaceIds}::uuid[]) group by slug
    on conflict (slug) do update set held_until = greatest(slug_holds.held_until, excluded.held_until)`;
}

export async function countProjects(sql: Db, workspaceId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from projects where workspace_id = ${workspaceId} and deleted_at is null`;
  return row.n;
}
