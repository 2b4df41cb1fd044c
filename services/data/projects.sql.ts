import type { Db, Sql } from '../core/infra/db.js';
import { isUuid } from '../core/infra/ids.js';
import { notFound } from '../core/rules/errors.js';

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
  const [row] = await sql<
    { n: number }[]
  >`select count(*)::int as n from projects where workspace_id = ${workspaceId} and deleted_at is null`;
  return row.n;
}

/** The project with this id, deleted or not (`notDeleted` leaves a deleted one out); null when there is none. */
export async function projectById(db: Db, projectId: string, opts: { notDeleted?: boolean } = {}): Promise<ProjectRow | null> {
  const [row] = await db<ProjectRow[]>`
    select * from projects where id = ${projectId} ${opts.notDeleted ? db`and deleted_at is null` : db``}`;
  return row ?? null;
}

/** The project with this slug, not deleted; null when there is none. */
export async function projectBySlug(db: Db, slug: string): Promise<ProjectRow | null> {
  const [row] = await db<ProjectRow[]>`select * from projects where slug = ${slug} and deleted_at is null`;
  return row ?? null;
}

/**
 * Serialises project creations per workspace (the plan's count) and per slug (taken is global)
 * until the transaction ends, so two racing requests can neither both pass the limit nor both
 * take one slug.
 */
export async function lockProjectCreation(tx: Db, workspaceId: string, slug: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(hashtext('projects:' || ${workspaceId}))`;
  await tx`select pg_advisory_xact_lock(hashtext('slug:' || ${slug}))`;
}

export async function insertProject(tx: Db, workspaceId: string, input: { slug: string; name: string }): Promise<ProjectRow> {
  const [row] = await tx<ProjectRow[]>`
    insert into projects (workspace_id, slug, name) values (${workspaceId}, ${input.slug}, ${input.name}) returning *`;
  return row;
}

export async function setProjectName(db: Db, projectId: string, name: string): Promise<ProjectRow> {
  const [row] = await db<ProjectRow[]>`update projects set name = ${name} where id = ${projectId} returning *`;
  return row;
}

/** Whether the room asks its viewers for an email. */
export async function setRequireEmail(db: Db, projectId: string, requireEmail: boolean): Promise<ProjectRow> {
  const [row] = await db<ProjectRow[]>`update projects set require_email = ${requireEmail} where id = ${projectId} returning *`;
  return row;
}

/** Deleted now (its slug held from here, slugHeld); a project deleted already keeps its date. */
export async function markProjectDeleted(db: Db, projectId: string): Promise<void> {
  await db`update projects set deleted_at = now() where id = ${projectId} and deleted_at is null`;
}

/** The platform's takedown set or lifted, by slug of a project not deleted; the project's id, or null when there is none. */
export async function setTakenDown(db: Db, slug: string, down: boolean): Promise<string | null> {
  const rows = await db<{ id: string }[]>`
    update projects set taken_down_at = ${down ? db`now()` : null}
    where slug = ${slug} and deleted_at is null returning id`;
  return rows[0]?.id ?? null;
}

/**
 * Spec 7: projects are refitted to the plan only when it changes (or the operator restores the
 * workspace). The oldest projects up to the plan's number stay open; the rest are over the limit.
 */
export async function refitProjects(db: Db, workspaceId: string, allowed: number): Promise<void> {
  await db`
    update projects p set over_limit_at = case when r.n > ${allowed} then coalesce(p.over_limit_at, now()) else null end
    from (select id, row_number() over (order by created_at, id) as n from projects
          where workspace_id = ${workspaceId} and deleted_at is null) r
    where p.id = r.id`;
}

/** The longest-deleted project past its slug hold whose stored bytes are not purged yet, locked (another sweep skips it); null when none is left. */
export async function projectToPurge(tx: Db): Promise<{ id: string } | null> {
  const [project] = await tx<{ id: string }[]>`
    select id from projects
    where deleted_at < now() - make_interval(days => ${slugHoldDays}) and purged_at is null
    order by deleted_at
    limit 1
    for update skip locked`;
  return project ?? null;
}

export async function markProjectPurged(tx: Db, projectId: string): Promise<void> {
  await tx`update projects set purged_at = now() where id = ${projectId}`;
}
