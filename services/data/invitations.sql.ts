import type { Db } from '../core/infra/db.js';
import { hashSecret, isUuid, newSecret } from '../core/infra/ids.js';

// Invitations to a team (spec 2.6, 3 Invitation, 4.3). The address carries a key shown once and
// kept only as a hash. An invitation is waiting while neither used nor revoked and unexpired.

export const invitationDays = 7;

export interface InvitationRow {
  id: string;
  workspaceId: string;
  email: string;
  role: 'owner' | 'member';
  invitedBy: string | null;
  inviterName: string | null;
  inviterEmail: string | null;
  createdAt: Date;
  expiresAt: Date;
}

const columns = (sql: Db) => sql`
  i.id, i.workspace_id, i.email, i.role, i.invited_by, p.name as inviter_name, p.email as inviter_email, i.created_at, i.expires_at`;
const waiting = (sql: Db) => sql`i.used_at is null and i.revoked_at is null and i.expires_at > now()`;

/** The team's waiting invitations, newest first. */
export function waitingInvitations(sql: Db, workspaceId: string) {
  return sql<InvitationRow[]>`
    select ${columns(sql)} from invitations i left join people p on p.id = i.invited_by
    where i.workspace_id = ${workspaceId} and ${waiting(sql)}
    order by i.created_at desc, i.id`;
}

export async function isInvited(tx: Db, workspaceId: string, email: string): Promise<boolean> {
  const [row] = await tx<{ n: number }[]>`
    select count(*)::int as n from invitations i where i.workspace_id = ${workspaceId} and i.email = ${email} and ${waiting(tx)}`;
  return row.n > 0;
}

export async function isMemberByEmail(tx: Db, workspaceId: string, email: string): Promise<boolean> {
  const [row] = await tx<{ n: number }[]>`
    select count(*)::int as n from memberships m join people p on p.id = m.person_id
    where m.workspace_id = ${workspaceId} and p.email = ${email}`;
  return row.n > 0;
}

/** A new invitation and the key of its address (shown once). */
export async function insertInvitation(
  tx: Db,
  i: { workspaceId: string; email: string; invitedBy: string },
): Promise<{ id: string; key: string }> {
  const key = newSecret('pp_inv', 24);
  const [row] = await tx<{ id: string }[]>`
    insert into invitations (workspace_id, email, invited_by, key_hash, expires_at)
    values (${i.workspaceId}, ${i.email}, ${i.invitedBy}, ${hashSecret(key)}, now() + make_interval(days => ${invitationDays}))
    returning id`;
  return { id: row.id, key };
}

/**
 * Revokes the workspace's invitation if it is waiting: 'revoked'; 'stopped' when it is the
 * workspace's but already revoked, used or expired (its link opens nothing already); null when
 * the workspace has no such invitation.
 */
export async function revokeInvitationRow(sql: Db, workspaceId: string, invitationId: string): Promise<'revoked' | 'stopped' | null> {
  if (!isUuid(invitationId)) return null;
  const [row] = await sql<{ wasWaiting: boolean }[]>`
    with found as (
      select i.id, ${waiting(sql)} as was_waiting from invitations i
      where i.id = ${invitationId} and i.workspace_id = ${workspaceId} for update
    ), revoked as (
      update invitations set revoked_at = now() from found where invitations.id = found.id and found.was_waiting returning invitations.id
    )
    select was_waiting from found`;
  return row ? (row.wasWaiting ? 'revoked' : 'stopped') : null;
}

/**
 * A waiting invitation addressed to `email`, found by its id or by its address's key; null when
 * used, revoked, expired, someone else's or absent (all the same to the caller). `lock` holds it.
 */
export async function invitationFor(
  sql: Db,
  idOrKey: string,
  email: string,
  lock = false,
): Promise<(InvitationRow & { workspaceName: string }) | null> {
  const match = isUuid(idOrKey) ? sql`i.id = ${idOrKey}` : idOrKey.length <= 200 ? sql`i.key_hash = ${hashSecret(idOrKey)}` : null;
  if (!match) return null;
  const [row] = await sql<(InvitationRow & { workspaceName: string })[]>`
    select ${columns(sql)}, w.name as workspace_name
    from invitations i join workspaces w on w.id = i.workspace_id left join people p on p.id = i.invited_by
    where ${match} and i.email = ${email} and w.deleted_at is null and ${waiting(sql)}
    ${lock ? sql`for update of i` : sql``}`;
  return row ?? null;
}

export async function markInvitationUsed(tx: Db, invitationId: string, personId: string) {
  await tx`update invitations set used_at = now(), used_by = ${personId} where id = ${invitationId}`;
}
