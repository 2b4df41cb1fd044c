import type { Db, Sql } from '../core/infra/db.js';
import { hashSecret, newSecret } from '../core/infra/ids.js';

export type SessionKind = 'web' | 'cli' | 'connector';

/** What a token or cookie resolves to: the session, its person and the workspace it acts on. */
export interface SessionAuth {
  sessionId: string;
  personId: string;
  kind: SessionKind;
  readOnly: boolean;
  workspaceId: string;
  role: 'owner' | 'member';
  /** When the person signed in to open this session: a step-up asks for a recent one. */
  signedInAt: Date;
}

const tokenPrefix: Record<SessionKind, string> = { web: 'pp_web', cli: 'pp_cli', connector: 'pp_con' };

/** Opens a session and returns its token, which is shown once and stored only as a hash. */
export async function createSession(
  sql: Sql,
  s: {
    personId: string;
    kind: SessionKind;
    days: number;
    readOnly?: boolean;
    method: string;
    userAgent?: string | null;
    workspaceId?: string;
  },
): Promise<{ token: string; sessionId: string; personId: string; expiresAt: Date }> {
  const token = newSecret(tokenPrefix[s.kind]);
  const [row] = await sql<{ id: string; expiresAt: Date }[]>`
    insert into sessions (person_id, token_hash, kind, read_only, sign_in_method, user_agent, active_workspace_id, expires_at)
    values (${s.personId}, ${hashSecret(token)}, ${s.kind}, ${s.readOnly ?? false}, ${s.method},
            ${s.userAgent?.slice(0, 400) ?? null}, ${s.workspaceId ?? null}, now() + make_interval(days => ${s.days}))
    returning id, expires_at`;
  return { token, sessionId: row.id, personId: s.personId, expiresAt: row.expiresAt };
}

/**
 * Resolves a token to a live session and its workspace (spec section 1): the workspace the session
 * has active while the person still belongs to it, else the first workspace the person joined.
 * A person in no workspace is treated as signed out (null).
 */
export async function resolveSession(sql: Sql, token: string): Promise<SessionAuth | null> {
  // Marks the session used: at most one write a minute per session, whatever the request rate.
  const [row] = await sql<SessionAuth[]>`
    with used as (
      update sessions set last_used_at = now()
      where token_hash = ${hashSecret(token)} and ended_at is null and expires_at > now()
        and (last_used_at is null or last_used_at < now() - interval '1 minute')
    )
    select s.id as session_id, s.person_id, s.kind, s.read_only, s.created_at as signed_in_at, m.workspace_id, m.role
    from sessions s
    join lateral (
      select workspace_id, role from memberships m
      where m.person_id = s.person_id
      order by (m.workspace_id = s.active_workspace_id) desc nulls last, m.joined_at, m.workspace_id
      limit 1
    ) m on true
    where s.token_hash = ${hashSecret(token)} and s.ended_at is null and s.expires_at > now()`;
  return row ?? null;
}

export async function endSession(sql: Sql, sessionId: string): Promise<void> {
  await sql`update sessions set ended_at = now() where id = ${sessionId} and ended_at is null`;
}

export interface SessionRow {
  id: string;
  kind: SessionKind;
  readOnly: boolean;
  lastUsedAt: Date | null;
  signInMethod: string | null;
  userAgent: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/** The person's live sessions (not ended, not expired), newest first. Never the token's hash. */
export async function liveSessionsOf(sql: Sql, personId: string): Promise<SessionRow[]> {
  return sql<SessionRow[]>`
    select id, kind, read_only, sign_in_method, user_agent, created_at, expires_at, last_used_at from sessions
    where person_id = ${personId} and ended_at is null and expires_at > now()
    order by created_at desc, id`;
}

/** Ends one of the person's live sessions; false when it is not theirs, not live or unknown. */
export async function endOwnSession(sql: Sql, personId: string, sessionId: string): Promise<boolean> {
  const rows = await sql`
    update sessions set ended_at = now()
    where id = ${sessionId} and person_id = ${personId} and ended_at is null and expires_at > now()
    returning id`;
  return rows.length === 1;
}

/** Ends every live session of the person; answers how many. */
export async function endEverySession(sql: Db, personId: string): Promise<number> {
  const rows = await sql`
    update sessions set ended_at = now()
    where person_id = ${personId} and ended_at is null and expires_at > now()
    returning id`;
  return rows.length;
}

/**
 * Device logins the person approved that the tool has not collected yet: they are cancelled when
 * the person signs out everywhere, or the waiting tool would still get a token afterwards.
 */
export async function cancelApprovedDeviceLogins(sql: Db, personId: string): Promise<void> {
  await sql`update device_logins set expires_at = now() where approved_by = ${personId} and redeemed_at is null and expires_at > now()`;
}

/** Sessions ended (or expired) over 30 days ago: until then the sessions list still shows them. The number removed. */
export async function deleteLongEndedSessions(sql: Sql): Promise<number> {
  const gone = await sql`delete from sessions where coalesce(ended_at, expires_at) < now() - interval '30 days'`;
  return gone.count;
}
