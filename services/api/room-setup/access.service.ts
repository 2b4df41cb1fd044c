import type { Sql } from '../../core/infra/db.js';
import { projectIn, setRequireEmail, type ProjectRow } from '../../data/projects.sql.js';
import { planFor } from '../../data/workspaces.sql.js';

// Who gets into the room: whether it asks viewers for an email, whether the plan allows private
// links at all. Preview passes are in preview-pass.ts.

type Actor = { workspaceId: string };

async function accessOf(sql: Sql, project: ProjectRow) {
  return { requireEmail: project.requireEmail, privateLinks: (await planFor(sql, project.workspaceId)).privateLinks };
}

export async function getAccess(sql: Sql, actor: Actor, projectId: string) {
  return accessOf(sql, await projectIn(sql, actor.workspaceId, projectId));
}

/** setAccess: the email the room asks for is not verified, and nothing is sent to it. */
export async function setAccess(sql: Sql, actor: Actor, projectId: string, requireEmail: boolean) {
  const project = await projectIn(sql, actor.workspaceId, projectId);
  return accessOf(sql, await setRequireEmail(sql, project.id, requireEmail));
}
