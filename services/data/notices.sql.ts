import type { Db } from '../core/infra/db.js';

// Notices (spec 2.9, 6): what the platform tells a workspace's people about their listings and
// appeals. Written once for each member of the workspace at the time; each reads their own.

export type NoticeKind =
  | 'listing.blocked'
  | 'listing.pulled'
  | 'listing.takedown'
  | 'appeal.upheld'
  | 'appeal.denied'
  | 'webhook.disabled'
  | 'webhook.added';
export interface NoticeRow {
  id: string;
  kind: NoticeKind;
  title: string;
  body: string;
  href: string | null;
  createdAt: Date;
  readAt: Date | null;
}

export async function noticeWorkspace(
  tx: Db,
  n: { workspaceId: string; projectId: string | null; kind: NoticeKind; title: string; body: string; href: string | null },
  /** `owners`: only the workspace's owners hear it (a new webhook endpoint, security-4 L5). */
  to: 'members' | 'owners' = 'members',
) {
  await tx`
    insert into notices (person_id, workspace_id, project_id, kind, title, body, href)
    select m.person_id, ${n.workspaceId}, ${n.projectId}, ${n.kind}, ${n.title}, ${n.body}, ${n.href}
    from memberships m where m.workspace_id = ${n.workspaceId} ${to === 'owners' ? tx`and m.role = 'owner'` : tx``}`;
}

/**
 * Only notices of workspaces the person is still a member of (or of none): one who left or was
 * removed reads nothing more of the team's, though the rows stay (a person who rejoins sees them
 * again). A filter at read time holds whatever path ended the membership.
 */
const stillMember = (sql: Db) => sql`
  and (notices.workspace_id is null or exists (
    select 1 from memberships m where m.workspace_id = notices.workspace_id and m.person_id = notices.person_id))`;

/** The person's last 50 notices, newest first. */
export function noticesOf(sql: Db, personId: string) {
  return sql<NoticeRow[]>`
    select id, kind, title, body, href, created_at, read_at from notices where person_id = ${personId} ${stillMember(sql)}
    order by created_at desc, id limit 50`;
}

/** Marks the given notices (all when null) read; answers how many changed. */
export async function markNoticesRead(sql: Db, personId: string, ids: string[] | null): Promise<number> {
  const rows = await sql`
    update notices set read_at = now() where person_id = ${personId} and read_at is null ${stillMember(sql)}
    ${ids === null ? sql`` : sql`and id = any(${ids}::uuid[])`} returning id`;
  return rows.length;
}
