import type { Db, Sql } from '../core/infra/db.js';
import { notFound } from '../core/rules/errors.js';
import { isUuid } from '../core/infra/ids.js';
import { recordEvidence } from './link-evidence.sql.js';
import { emitProductEvent } from './product-events.sql.js';
import type { RoomSessionRow } from './room-sessions.sql.js';

// Comments pinned to screens and the builder's one reply (spec 2.5, 3; migrations/00010). The
// screenshot's bytes live in the object store under `screenshotKey`; the row says why there is
// none otherwise. Comments stay after their link is revoked.

/** Where a comment's picture lives in the object store; a project's all sit under one prefix. */
export const screenshotPrefix = (projectId: string) => `screenshots/${projectId}/`;
export const screenshotKey = (projectId: string, commentId: string) => `${screenshotPrefix(projectId)}${commentId}`;

export type ScreenshotNote = 'removed' | 'no-answer' | 'timeout' | 'blocked' | 'tainted' | 'too-large' | 'failed' | 'blank';
export type Device = 'phone' | 'tablet' | 'laptop' | 'screen' | 'none';

export interface CommentRow {
  id: string;
  workspaceId: string;
  projectId: string;
  linkId: string | null;
  buildId: string | null;
  viewerName: string | null;
  viewerEmail: string | null;
  appId: string | null;
  screen: string | null;
  body: string;
  position: { x: number; y: number } | null;
  area: { x: number; y: number; width: number; height: number } | null;
  device: Device | null;
  screenshotKey: string | null;
  screenshotType: 'image/png' | 'image/webp' | null;
  screenshotWidth: number | null;
  screenshotHeight: number | null;
  screenshotBytes: number | null;
  screenshotNote: ScreenshotNote | null;
  resolvedAt: Date | null;
  reply: string | null;
  repliedAt: Date | null;
  repliedBy: string | null;
  /** When the viewer last saw the reply in the room (migrations/00041); a later reply is new to them. */
  replySeenAt: Date | null;
  /** The replying member's display name (joined). */
  replierName: string | null;
  /** The name of the app it was made on, in the manifest of the build it was made on (joined). */
  appName: string | null;
  createdAt: Date;
}

/** What the room hands over for a new comment; the screenshot is already in the object store. */
export interface NewComment {
  id: string;
  buildId: string | null;
  appId: string | null;
  screen: string | null;
  body: string;
  position: CommentRow['position'];
  area: CommentRow['area'];
  device: Device | null;
  screenshot: { key: string; type: 'image/png' | 'image/webp'; width: number; height: number; bytes: number } | null;
  screenshotNote: ScreenshotNote | null;
}

const selectComment = (sql: Db) => sql`
  select c.*, case when p.id is null then null else coalesce(nullif(p.name, ''), split_part(p.email, '@', 1)) end as replier_name,
    (select a->>'name' from builds b, jsonb_array_elements(case when jsonb_typeof(b.manifest->'apps') = 'array' then b.manifest->'apps' else '[]' end) a
     where b.id = c.build_id and a->>'id' = c.app_id limit 1) as app_name
  from comments c left join people p on p.id = c.replied_by`;

/** Stores a viewer's comment; a comment is evidence of engagement for its link. */
export async function addComment(sql: Sql, session: RoomSessionRow, c: NewComment): Promise<CommentRow> {
  const json = (v: unknown) => (v === null ? null : JSON.stringify(v));
  return sql.begin(async (tx) => {
    await tx`
      insert into comments (id, workspace_id, project_id, link_id, session_id, build_id, viewer_name, viewer_email, app_id, screen, body,
                            position, area, device, screenshot_key, screenshot_type, screenshot_width, screenshot_height, screenshot_bytes, screenshot_note)
      values (${c.id}, ${session.workspaceId}, ${session.projectId}, ${session.linkId}, ${session.id}, ${c.buildId}, ${session.viewerName}, ${session.viewerEmail},
              ${c.appId}, ${c.screen}, ${c.body}, ${json(c.position)}::text::jsonb, ${json(c.area)}::text::jsonb, ${c.device},
              ${c.screenshot?.key ?? null}, ${c.screenshot?.type ?? null}, ${c.screenshot?.width ?? null}, ${c.screenshot?.height ?? null},
              ${c.screenshot?.bytes ?? null}, ${c.screenshot ? null : c.screenshotNote})`;
    await emitProductEvent(tx, {
      workspaceId: session.workspaceId,
      projectId: session.projectId,
      linkId: session.linkId,
      kind: 'comment.left',
      viewerName: session.viewerName,
      viewerCompany: session.viewerCompany,
      data: { commentId: c.id, body: c.body },
    });
    await recordEvidence(tx, session.linkId, 'engaged');
    return commentById(tx, c.id);
  });
}

async function commentById(sql: Db, id: string): Promise<CommentRow> {
  const [row] = await sql<CommentRow[]>`${selectComment(sql)} where c.id = ${id}`;
  return row;
}

/** The comment with this id in this workspace, of a project not deleted; 404 otherwise. */
export async function commentIn(sql: Db, workspaceId: string, commentId: string): Promise<CommentRow> {
  if (!isUuid(commentId)) throw notFound();
  const [row] = await sql<CommentRow[]>`
    ${selectComment(sql)} join projects pr on pr.id = c.project_id
    where c.id = ${commentId} and c.workspace_id = ${workspaceId} and pr.deleted_at is null`;
  if (!row) throw notFound();
  return row;
}

/** Every comment of the project, newest first. */
export function commentsOf(sql: Db, projectId: string) {
  return sql<CommentRow[]>`${selectComment(sql)} where c.project_id = ${projectId} order by c.created_at desc, c.id desc`;
}

/** The comments left through one link, oldest first: what the room shows its viewer, with replies. */
export function commentsOfLink(sql: Db, linkId: string) {
  return sql<CommentRow[]>`${selectComment(sql)} where c.link_id = ${linkId} order by c.created_at, c.id`;
}

/** Resolved sets resolvedAt (kept when already set); unresolved clears it. */
export async function resolveComment(sql: Db, id: string, resolved: boolean): Promise<CommentRow> {
  await sql`update comments set resolved_at = case when ${resolved}::boolean then coalesce(resolved_at, now()) else null end where id = ${id}`;
  return commentById(sql, id);
}

/** One reply per comment: a second replaces the first, and its author and time. */
export async function replyToComment(sql: Db, id: string, body: string, personId: string): Promise<CommentRow> {
  await sql`update comments set reply = ${body}, replied_at = now(), replied_by = ${personId} where id = ${id}`;
  return commentById(sql, id);
}

/** A reply the viewer has not seen in the room: none yet, or one written since. */
export const replyIsNew = (c: Pick<CommentRow, 'reply' | 'repliedAt' | 'replySeenAt'>) =>
  c.reply !== null && (c.replySeenAt === null || (c.repliedAt !== null && c.replySeenAt < c.repliedAt));

/**
 * The viewer saw the replies to these comments of their link (ids of other links' comments, or of
 * comments without a reply, change nothing). Answers how many were marked.
 */
export async function markRepliesSeen(sql: Db, linkId: string, commentIds: string[]): Promise<number> {
  const ids = commentIds.filter(isUuid);
  if (!ids.length) return 0;
  const rows = await sql`
    update comments set reply_seen_at = now()
    where link_id = ${linkId} and id = any(${ids}::uuid[]) and reply is not null`;
  return rows.count;
}

/**
 * Forgets the comment's screenshot: the row says `removed` from now on. Answers the key whose
 * object the caller deletes; null when it had none (a second removal, or a comment that came
 * without one keeps its own note).
 */
export async function forgetScreenshot(sql: Db, id: string): Promise<string | null> {
  const [row] = await sql<{ key: string | null }[]>`
    update comments c set screenshot_key = null, screenshot_type = null, screenshot_width = null, screenshot_height = null,
      screenshot_bytes = null, screenshot_note = 'removed'
    from (select id, screenshot_key from comments where id = ${id} for update) before
    where c.id = before.id and before.screenshot_key is not null
    returning before.screenshot_key as key`;
  return row?.key ?? null;
}

/** The replying member as FeedbackRec names them. */
export const replierOf = (c: CommentRow) =>
  c.repliedBy && c.replierName !== null ? { userId: c.repliedBy, displayName: c.replierName } : null;

/** Comments the session left in the last hour: the room's cap on a flood from one viewer. */
export async function commentsInLastHour(sql: Db, sessionId: string): Promise<{ count: number; retryAfter: number }> {
  const [row] = await sql<{ count: number; retryAfter: number }[]>`
    select count(*)::int as count,
           coalesce(ceil(extract(epoch from min(created_at) + interval '1 hour' - now())), 0)::int as retry_after
    from comments where session_id = ${sessionId} and created_at > now() - interval '1 hour'`;
  return row;
}
