import type { Sql } from '../../core/infra/db.js';
import { refused } from '../../core/rules/errors.js';
import { planLimit, planOf } from '../../core/rules/plans.js';
import { effectivePlan, workspaceById } from '../../data/workspaces.sql.js';
import { checkSlug } from '../../core/rules/slug-rules.js';
import {
  countProjects,
  insertProject,
  lockProjectCreation,
  markProjectDeleted,
  projectIn,
  setProjectName,
  slugHeld,
  type ProjectRow,
} from '../../data/projects.sql.js';

export async function createProject(sql: Sql, workspaceId: string, input: { slug: string; name: string }): Promise<ProjectRow> {
  checkSlug(input.slug);
  return sql.begin(async (tx) => {
    await lockProjectCreation(tx, workspaceId, input.slug);
    if (await slugHeld(tx, input.slug)) throw refused(409, 'taken', 'another project uses this slug, or used it less than 30 days ago');
    const ws = await workspaceById(tx, workspaceId);
    const plan = effectivePlan(ws);
    if ((await countProjects(tx, workspaceId)) >= planOf(plan).projects) throw planLimit('projects', plan);
    return insertProject(tx, workspaceId, input);
  }) as Promise<ProjectRow>;
}

export async function renameProject(sql: Sql, workspaceId: string, projectId: string, name: string): Promise<ProjectRow> {
  await projectIn(sql, workspaceId, projectId);
  return setProjectName(sql, projectId, name);
}

/** Deletes when `confirm` is the slug. The slug stays held 30 days; links stop with the project. */
export async function deleteProject(sql: Sql, workspaceId: string, projectId: string, confirm: string) {
  const p = await projectIn(sql, workspaceId, projectId);
  if (confirm !== p.slug) throw refused(422, 'confirm', 'type the project slug to delete it');
  await markProjectDeleted(sql, p.id);
  return { deleted: true as const };
}
