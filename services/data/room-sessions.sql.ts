import type { Manifest } from '@demo-rooms/contract/manifest';
import type { Db, Sql } from '../core/infra/db.js';
import { markLinkOpened } from './link-opened.sql.js';
import { hashSecret, isUuid, newSecret } from '../core/infra/ids.js';

// Room sessions (table room_sessions, migrations/00005): one viewer's browser in one room. The cookie carries the token; the
// session id is public (it names the shell's endpoints), the token is not.

export interface RoomSessionRow {
  id: string;
  workspaceId: string;
  projectId: string;
  linkId: string | null;
  entryHash: Buffer;
  preview: boolean;
  viewerName: string | null;
  viewerEmail: string | null;
  /** The company the viewer typed in who-are-you (migrations/00029); null until given. */
  viewerCompany: string | null;
  visitId: string | null;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  endedAt: Date | null;
}

/** How long a session lasts without coming back to the link. */
export const sessionHours = 12;

/**
 * A session counts as in the room while its shell has beaten within this many seconds, once the
 * shell has arrived (it has had a visit): a page fetched and never run holds no seat, so bare
 * GETs of an address cannot fill a room.
 */
export const presentSeconds = 90;

/** The session `id` when `token` is its own and it has neither ended nor expired. */
export async function sessionByToken(sql: Db, id: string | undefined, token: string | undefined): Promise<RoomSessionRow | null> {
  if (!id || !token || !isUuid(id) || token.length > 200) return null;
  const [row] = await sql<RoomSessionRow[]>`
    select * from room_sessions
    where id = ${id} and token_hash = ${hashSecret(token)} and ended_at is null and expires_at > now()`;
  return row ?? null;
}

export async function createSession(
  tx: Db,
  s: { workspaceId: string; projectId: string; linkId: string | null; entryKey: string; preview: boolean },
): Promise<{ session: RoomSessionRow; token: string }> {
  const token = newSecret('pp_room', 24);
  const [session] = await tx<RoomSessionRow[]>`
    insert into room_sessions (workspace_id, project_id, link_id, entry_hash, token_hash, preview, expires_at)
    values (${s.workspaceId}, ${s.projectId}, ${s.linkId}, ${hashSecret(s.entryKey)}, ${hashSecret(token)}, ${s.preview},
            now() + make_interval(hours => ${sessionHours}))
    returning *`;
  return { session, token };
}

/** Viewers in the room now: sessions (not previews) whose shell arrived and beat recently. */
export async function viewersPresent(tx: Db, projectId: string): Promise<number> {
  const [row] = await tx<{ n: number }[]>`
    select count(*)::int as n from room_sessions
    where project_id = ${projectId} and ended_at is null and not preview and visit_id is not null
      and last_seen_at > now() - make_interval(secs => ${presentSeconds})`;
  return row.n;
}

/**
 * One admission at a time per room, until the transaction ends, so racing viewers cannot pass
 * the room's viewer number together (at the door and when their shell arrives).
 */
export async function holdRoomAdmission(tx: Db, projectId: string) {
  await tx`select pg_advisory_xact_lock(hashtextextended(${'room-admit:' + projectId}, 0))`;
}

export async function saveWhoYouAre(sql: Sql, sessionId: string, answer: { name?: string; email?: string; company?: string }) {
  return sql.begin(async (tx) => {
    const [row] = await tx<RoomSessionRow[]>`
      update room_sessions set
        viewer_name = coalesce(${answer.name ?? null}, viewer_name),
        viewer_company = coalesce(${answer.company ?? null}, viewer_company),
        viewer_email = coalesce(${answer.email ?? null}, viewer_email)
      where id = ${sessionId} returning *`;
    if (answer.name && row.visitId) {
      // The visit carries the name the viewer gave, so listVisits shows who really came.
      await tx`update visits set viewer_name = ${answer.name} where id = ${row.visitId}`;
      // In the room and named: the link is opened now (link-opened.sql.ts).
      await markLinkOpened(tx, row, row.visitId);
    }
    return row;
  });
}

/**
 * Whether a session may still see content: its link open, its project neither deleted, taken
 * down, over its plan nor in a suspended workspace. Read on every content request (cached for a
 * few seconds), so a revoke or a takedown stops a viewer already in.
 */
export async function sessionStanding(sql: Sql, sessionId: string) {
  const [row] = await standingOf(sql, [sessionId]);
  return row ?? null;
}

/** The standing of many sessions in one query (the data plane's route sync, every half second): those that stand, by id. */
export async function sessionStandings(sql: Sql, sessionIds: string[]) {
  const rows = sessionIds.length ? await standingOf(sql, sessionIds) : [];
  return new Map(rows.map((r) => [r.sessionId, r]));
}

function standingOf(sql: Sql, sessionIds: string[]) {
  return sql<
    {
      sessionId: string;
      projectId: string;
      slug: string;
      liveBuildId: string | null;
      kind: string | null;
      manifest: Manifest | null;
      ownerPaused: boolean;
      /** Who the viewer is, for a build that personalises its copies: what they typed, else what their link says. */
      viewerName: string | null;
      viewerCompany: string | null;
    }[]
  >`
    select s.id as session_id, p.id as project_id, p.slug, p.live_build_id, b.kind, b.manifest, (r.paused_at is not null) as owner_paused,
           coalesce(s.viewer_name, l.viewer_name) as viewer_name, coalesce(s.viewer_company, l.viewer_company) as viewer_company
    from room_sessions s
    join projects p on p.id = s.project_id and p.deleted_at is null and p.taken_down_at is null and p.over_limit_at is null
    join workspaces w on w.id = p.workspace_id and w.suspended_at is null
    left join links l on l.id = s.link_id
    left join builds b on b.id = p.live_build_id
    left join rooms r on r.project_id = p.id
    where s.id = any(${sessionIds}::uuid[]) and s.ended_at is null and s.expires_at > now()
      -- A reissued link's old address stops at once, and with it the sessions that came through it.
      and (s.preview or (l.revoked_at is null and (l.expires_at is null or l.expires_at > now()) and l.key_hash = s.entry_hash)
           -- A public room's session (no link, no preview) stands while the project is listed with
           -- the build it was listed with: unlisting stops those already in.
           or (s.link_id is null and exists (
             select 1 from cards c where c.project_id = p.id and c.status = 'listed' and c.listed_build_id = p.live_build_id)))`;
}

/**
 * The first comment or answer of a session asks once for the viewer's email when the room has
 * none: true for the call that should ask (and marks it asked), false ever after.
 */
export async function askEmailOnce(sql: Db, sessionId: string): Promise<boolean> {
  // Not when the link already carries the viewer's email, nor when the same person (their name on
  // their link) gave it in another browser: a viewer is asked once, not once per device.
  const asked = await sql`
    update room_sessions s set email_asked_at = now()
    where s.id = ${sessionId} and s.email_asked_at is null and s.viewer_email is null and not s.preview
      and not exists (select 1 from links l where l.id = s.link_id and l.viewer_email is not null)
      and not exists (
        select 1 from room_sessions o
        where o.link_id = s.link_id and o.id <> s.id and o.viewer_email is not null
          and lower(btrim(o.viewer_name)) = lower(btrim(s.viewer_name)))`;
  return asked.count === 1;
}

/** A link's sessions (not previews), first first: who they said they were and when they ran. */
export function sessionsOfLink(sql: Db, linkId: string) {
  return sql<Pick<RoomSessionRow, 'id' | 'viewerName' | 'viewerEmail' | 'createdAt' | 'endedAt' | 'lastSeenAt'>[]>`
    select id, viewer_name, viewer_email, created_at, ended_at, last_seen_at from room_sessions
    -- Only sessions whose shell ran (they have had a visit): a page fetched and never run is nobody.
    where link_id = ${linkId} and not preview and visit_id is not null order by created_at, id`;
}

/** Whether the session was seen in the last `seconds` (a reload came back); true when there is no such session (nothing to hand back). */
export async function seenWithin(sql: Db, sessionId: string, seconds: number): Promise<boolean> {
  const [row] = await sql<{ back: boolean }[]>`
    select last_seen_at > now() - make_interval(secs => ${seconds}) as back from room_sessions where id = ${sessionId}`;
  return row?.back ?? true;
}

/** A viewer turned away from a full room, once per browser and hour (the owner's "turned away" count). */
export async function recordBounce(tx: Db, b: { workspaceId: string; projectId: string; browserHash: Buffer }): Promise<void> {
  await tx`
    insert into room_bounces (workspace_id, project_id, browser_hash, hour)
    values (${b.workspaceId}, ${b.projectId}, ${b.browserHash}, date_trunc('hour', now()))
    on conflict do nothing`;
}

/** The session was seen now (a reload), so its copy is not handed back. */
export async function markSessionSeen(sql: Sql, sessionId: string): Promise<void> {
  await sql`update room_sessions set last_seen_at = now() where id = ${sessionId}`;
}
