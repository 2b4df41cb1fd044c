import type { Db } from '../../core/infra/db.js';
import { notFound, roleCannot } from '../../core/rules/errors.js';
import { membershipIn } from '../../data/teams.sql.js';
import type { WorkspaceRow } from '../../data/workspaces.sql.js';

// Who may act on a workspace named in the path: its members (anyone else gets 404, as for a
// missing id); and for its people, name, plan and deletion, only its owners (spec 5 (7)).

export async function asMember(sql: Db, personId: string, workspaceId: string): Promise<WorkspaceRow> {
  const membership = await membershipIn(sql, workspaceId, personId);
  if (!membership) throw notFound();
  return membership;
}

/** `action` names what a member tried (403 `permission`, `action`). */
export async function asOwner(sql: Db, personId: string, workspaceId: string, action: string): Promise<WorkspaceRow> {
  const membership = await asMember(sql, personId, workspaceId);
  if (membership.role !== 'owner') throw roleCannot(action);
  return membership;
}
