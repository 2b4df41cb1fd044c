import type { Sql } from '../../core/db.js';
import { refused } from '../../core/errors.js';
import { planLimit, planOf } from '../../core/plans.js';
import { effectivePlan, workspaceById } from '../../data/workspaces.sql.js';
import { checkSlug } from '../../core/slug-rules.js';
import { countProjects, projectIn, slugHeld, type ProjectRow } from '../../data/projects.sql.js';

export async function createProject(sql: Sql, workspaceId: string, input: { slug: string; name: string }): Promise<ProjectRow> {
  checkSlug(input.slug);
  return sql.begin(async (tx) => {
    // Serialise creations per workspace (the plan's count) and per slug (taken is global), so
    // two racing requests can neither both pass the limit nor both take one slug.
    await tx`select pg_advisory_xact_lock(hashtext('projects:' || ${workspaceId}))`;
    await tx`select pg_advisory_xact_lock(hashtext('slug:' || ${input.slug}))`;
    if (await slugHeld(tx, input.slug)) throw refused(409, 'taken', 'another project uses this slug, or used it less than 30 days ago');
    const ws = await workspaceById(tx, workspaceId);
    const plan = effectivePlan(ws);
    if ((await countProjects(tx, workspaceId)) >= planOf(plan).projects) throw planLimit('projects', plan);
    const [row] = await tx<ProjectRow[]>`
      insert into projects (workspace_id, slug, name) values (${workspaceId}, ${input.slug}, ${input.name}) returning *`;
    return row;
  }) as Promise<ProjectRow>;
}

export async function renameProject(sql: Sql, workspaceId: string, projectId: string, name: string): Promise<ProjectRow> {
  await projectIn(sql, workspaceId, projectId);
  const [row] = await sql<ProjectRow[]>`update projects set name = ${name} where id = ${projectId} returning *`;
  return row;
}

/** Deletes when `confirm` is the slug. The slug stays held 30 days; links stop with the project. */
export async function deleteProject(sql: Sql, workspaceId: string, projectId: string, confirm: string) {
  const p = await projectIn(sql, workspaceId, projectId);
  if (confirm !== p.slug) throw refused(422, 'confirm', 'type the project slug to delete it');
  await sql`update projects set deleted_at = now() where id = ${p.id} and deleted_at is null`;
  return { deleted: true as const };
}
