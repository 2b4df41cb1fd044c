import type { Sql } from '../../core/db.js';
import { planOf } from '../../core/plans.js';
import { projectIn, type ProjectRow } from '../../data/projects.sql.js';
import { planNameOf } from '../../data/workspaces.sql.js';

// Who gets into the room: whether it asks viewers for an email, whether the plan allows private
// links at all. Preview passes are in preview-pass.ts.

type Actor = { workspaceId: string };

async function accessOf(sql: Sql, project: ProjectRow) {
  const plan = await planNameOf(sql, project.workspaceId);
  return { requireEmail: project.requireEmail, privateLinks: planOf(plan).privateLinks };
}

export async function getAccess(sql: Sql, actor: Actor, projectId: string) {
  return accessOf(sql, await projectIn(sql, actor.workspaceId, projectId));
}

/** setAccess: the email the room asks for is not verified, and nothing is sent to it. */
export async function setAccess(sql: Sql, actor: Actor, projectId: string, requireEmail: boolean) {
  const project = await projectIn(sql, actor.workspaceId, projectId);
  const [row] = await sql<ProjectRow[]>`update projects set require_email = ${requireEmail} where id = ${project.id} returning *`;
  return accessOf(sql, row);
}
