import type { Db, Sql } from '../core/infra/db.js';

// The runner's records: one row per copy (runner_copies) and its usage events (copy_events).
// Every change of state goes through `transition`: one statement that moves the row only from the
// states given, bumps its seq, and writes the event under that seq, so a change applied twice
// (a retry, a reconcile racing an event) moves and counts nothing the second time.

export const liveStates = ['creating', 'starting', 'warm', 'running', 'paused'] as const;
export type CopyState = 'queued' | (typeof liveStates)[number] | 'ended';
export type EventKind = 'queued' | 'start' | 'ready' | 'claim' | 'pause' | 'resume' | 'stop' | 'fail' | 'void';

export interface CopyRow {
  id: string;
  runnerId: string;
  workspaceId: string;
  projectId: string;
  buildId: string;
  sessionId: string | null;
  origin: 'viewer' | 'warm' | 'unowned';
  state: CopyState;
  endReason: string | null;
  containerId: string | null;
  networkId: string | null;
  host: string | null;
  port: number | null;
  seq: number;
  askedAt: Date;
  admittedAt: Date | null;
  startedAt: Date | null;
  readyAt: Date | null;
  claimedAt: Date | null;
  pausedAt: Date | null;
  activeAt: Date | null;
  seenAt: Date;
  endedAt: Date | null;
  coldStartMs: number | null;
  /** A queued copy's place in its workspace's queue, when the read that found it counted it (`sessionCopies`). */
  place?: number | null;
}

export const copyColumns =
  'id, runner_id, workspace_id, project_id, build_id, session_id, origin, state, end_reason, container_id, network_id, host, port, seq, asked_at, admitted_at, started_at, ready_at, claimed_at, paused_at, active_at, seen_at, ended_at, cold_start_ms';

/** A copy as admission first writes it: queued for a slot, or creating at once. */
export type NewCopy = Pick<CopyRow, 'id' | 'runnerId' | 'workspaceId' | 'projectId' | 'buildId' | 'sessionId' | 'origin'> & {
  state: 'queued' | 'creating';
};

export async function insertCopy(db: Db, c: NewCopy, event?: EventKind): Promise<CopyRow> {
  const [row] = await db<CopyRow[]>`
    insert into runner_copies (id, runner_id, workspace_id, project_id, build_id, session_id, origin, state, admitted_at, active_at)
    values (${c.id}, ${c.runnerId}, ${c.workspaceId}, ${c.projectId}, ${c.buildId}, ${c.sessionId}, ${c.origin}, ${c.state},
            ${c.state === 'creating' ? db`clock_timestamp()` : null}, clock_timestamp())
    returning ${db.unsafe(copyColumns)}`;
  if (event) await insertEvent(db, row, event);
  return row;
}

export async function insertEvent(
  db: Db,
  row: Pick<CopyRow, 'id' | 'seq' | 'workspaceId' | 'projectId' | 'buildId'>,
  kind: EventKind,
  extra: { coldStartMs?: number | null; detail?: string | null } = {},
) {
  await db`
    insert into copy_events (copy_id, seq, workspace_id, project_id, build_id, kind, cold_start_ms, detail)
    values (${row.id}, ${row.seq}, ${row.workspaceId}, ${row.projectId}, ${row.buildId}, ${kind}, ${extra.coldStartMs ?? null}, ${extra.detail ?? null})
    on conflict (copy_id, seq) do nothing`;
}

export interface Change {
  /** Columns to set (camelCase); `now` sets a timestamp column to the statement's clock. */
  set?: Record<string, unknown>;
  now?: string[];
  event?: EventKind;
  coldStartMs?: number | null;
  detail?: string | null;
  /** When the event happened, if not now: a moment the engine recorded (an adopted start's StartedAt). */
  at?: Date | null;
}

const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * Moves a copy from one of `from` to `to`, or does nothing (null) when it is no longer in one of
 * them. With an event, the event is written under the new seq by the same statement.
 */
export async function transition(
  db: Sql | Db,
  id: string,
  from: readonly CopyState[],
  to: CopyState,
  change: Change = {},
): Promise<CopyRow | null> {
  const extra = assignments(db, change.set ?? {}, [...(change.now ?? []), ...(to === 'ended' ? ['endedAt'] : [])]);
  // The change and its event in one statement: they commit together without a transaction's four
  // round trips (a crowd's starts make three of these each).
  const event = change.event
    ? db`, written as (
        insert into copy_events (copy_id, seq, workspace_id, project_id, build_id, kind, cold_start_ms, detail, at)
        select id, seq, workspace_id, project_id, build_id, ${change.event}, ${change.coldStartMs ?? null}, ${change.detail ?? null},
               coalesce(${change.at ?? null}::timestamptz, clock_timestamp()) from moved
        on conflict (copy_id, seq) do nothing
      )`
    : db``;
  const [row] = await db<CopyRow[]>`
    with moved as (
      update runner_copies set state = ${to}, seq = seq + 1 ${extra}
      where id = ${id} and state = any(${from as string[]})
      returning ${db.unsafe(copyColumns)}
    ) ${event}
    select * from moved`;
  return row ?? null;
}

/** Sets columns without changing state (addresses, ids, times): no seq bump, no event. */
export async function updateCopy(db: Db, id: string, set: Record<string, unknown>, now: string[] = []): Promise<void> {
  await db`update runner_copies set id = id ${assignments(db, set, now)} where id = ${id}`;
}

/** `, col = value, …` for each column given (postgres.js joins an array of fragments; an empty one must be a fragment too). */
function assignments(db: Db, set: Record<string, unknown>, now: string[]) {
  const parts = [
    ...Object.entries(set).map(([k, v]) => db`, ${db(snake(k))} = ${v as never}`),
    ...now.map((k) => db`, ${db(snake(k))} = clock_timestamp()`),
  ];
  return parts.length ? parts : db``;
}

export async function copyById(db: Db, id: string): Promise<CopyRow | null> {
  const [row] = await db<CopyRow[]>`select ${db.unsafe(copyColumns)} from runner_copies where id = ${id}`;
  return row ?? null;
}

/** A copy's events in order, with what each said (an engine's refusal is in a fail's detail): for a report of why it ended. */
export async function copyEventLog(db: Db, copyId: string): Promise<{ kind: string; at: Date; detail: string | null }[]> {
  return db<{ kind: string; at: Date; detail: string | null }[]>`
    select kind, at, detail from copy_events where copy_id = ${copyId} order by seq, at limit 50`;
}

/** The session's copy not ended, else its latest one (what it last became), else null. */
export async function copyOfSession(db: Db, sessionId: string): Promise<CopyRow | null> {
  const [row] = await db<CopyRow[]>`
    select ${db.unsafe(copyColumns)} from runner_copies where session_id = ${sessionId}
    order by (state <> 'ended') desc, asked_at desc limit 1`;
  return row ?? null;
}

/** What a read of the session's copy records: nothing, that the room still asks, or that the viewer is active too. */
export type SessionTouch = 'none' | 'seen' | 'active';

/** One session's read in a batch of `sessionCopies`: what it records, and how recent a mark is recent enough. */
export interface SessionRead {
  sessionId: string;
  touch: SessionTouch;
  floorMs: number;
}

/**
 * `copyOfSession` for many sessions in one statement, with what each read records and what the
 * view needs: the copy is marked seen (and active, when it runs or is paused) unless it was within
 * `floorMs`, and a queued copy's place is counted. A crowd re-asks every few seconds; a write for
 * each ask, a second read for the place, and a statement per ask were most of what a waiting
 * viewer cost (docs/scale.md), so a host batches its reads (runner/sessions/session-reads.ts).
 * Answered in the order asked; a session asked twice is read once and touched as its most
 * demanding ask says.
 */
export async function sessionCopies(db: Db, reads: SessionRead[]): Promise<(CopyRow | null)[]> {
  if (!reads.length) return [];
  const rank = { none: 0, seen: 1, active: 2 } as const;
  const each = new Map<string, SessionRead>();
  for (const r of reads) {
    const had = each.get(r.sessionId);
    if (!had || rank[r.touch] > rank[had.touch] || (r.touch === had.touch && r.floorMs < had.floorMs)) each.set(r.sessionId, r);
  }
  const asks = [...each.values()];
  const rows = await db<CopyRow[]>`
    with asks as (
      select * from unnest(${asks.map((a) => a.sessionId)}::uuid[], ${asks.map((a) => a.touch)}::text[],
        ${asks.map((a) => a.floorMs / 1000)}::float8[]) as a(session_id, touch, floor_s)
    ), latest as (
      select l.id, a.touch, a.floor_s from asks a
      cross join lateral (
        select id from runner_copies where session_id = a.session_id
        order by (state <> 'ended') desc, asked_at desc limit 1) l
    ), touched as (
      update runner_copies c set seen_at = clock_timestamp(),
        active_at = case when t.touch = 'active' and c.state in ('running', 'paused') then clock_timestamp() else c.active_at end
      from latest t
      where c.id = t.id and t.touch <> 'none' and c.state <> 'ended'
        and (c.seen_at < clock_timestamp() - make_interval(secs => t.floor_s)
             or (t.touch = 'active' and c.state in ('running', 'paused')
                 and (c.active_at is null or c.active_at < clock_timestamp() - make_interval(secs => t.floor_s))))
      returning c.id
    )
    select ${db.unsafe(copyColumns)},
      case when state = 'queued' then (
        select count(*)::int from runner_copies q
        where q.workspace_id = runner_copies.workspace_id and q.state = 'queued'
          and (q.asked_at, q.id) <= (runner_copies.asked_at, runner_copies.id)) end as place
    from runner_copies where id in (select id from latest)`;
  const bySession = new Map(rows.map((r) => [r.sessionId, r]));
  return reads.map((r) => bySession.get(r.sessionId) ?? null);
}

/** 1-based place of a queued copy in its workspace's queue (first come, first served). */
export async function placeOf(db: Db, row: Pick<CopyRow, 'id'>): Promise<number> {
  // Compared in SQL: asked_at has microseconds, a JavaScript Date only milliseconds.
  const [r] = await db<{ n: number }[]>`
    select count(*)::int as n from runner_copies q, runner_copies me
    where me.id = ${row.id} and q.workspace_id = me.workspace_id and q.state = 'queued' and (q.asked_at, q.id) <= (me.asked_at, me.id)`;
  return r.n;
}

export async function liveCopiesOf(db: Db, runnerId: string): Promise<CopyRow[]> {
  return db<CopyRow[]>`select ${db.unsafe(copyColumns)} from runner_copies where runner_id = ${runnerId} and state <> 'ended'`;
}

export async function countsByState(db: Db, runnerId: string): Promise<Record<string, number>> {
  const rows = await db<{ state: string; n: number }[]>`
    select state, count(*)::int as n from runner_copies where runner_id = ${runnerId} and state <> 'ended' group by state`;
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}

/** Unclaimed copies of the build on this host, not ended (the warm pool a prepare call reports). */
export async function unclaimedCopiesOf(db: Db, runnerId: string, buildId: string): Promise<number> {
  const [warm] = await db<{ n: number }[]>`
    select count(*)::int as n from runner_copies where build_id = ${buildId} and runner_id = ${runnerId} and session_id is null and state <> 'ended'`;
  return warm.n;
}

/** Warm copies on this host of builds no longer live: nobody will enter them. */
export function warmCopiesNotIn(db: Db, runnerId: string, liveBuildIds: string[]) {
  return db<{ id: string }[]>`
    select id from runner_copies
    where runner_id = ${runnerId} and session_id is null and state = 'warm' and not (build_id = any(${liveBuildIds}::uuid[]))`;
}

export type CullAction = 'pause' | 'idle' | 'max-age' | 'recycled';

/** This host's warm, running and paused copies, each with what the culler should do to it now (null, whatever the type says: nothing). */
export function copiesToCull(db: Db, runnerId: string, s: { maxAgeMs: number; idleRemoveMs: number; idlePauseMs: number }) {
  return db<(CopyRow & { action: CullAction })[]>`
    select *, case
        when started_at < now() - make_interval(secs => ${s.maxAgeMs / 1000}) then 'max-age'
        when state = 'warm' and started_at < now() - make_interval(secs => ${s.maxAgeMs / 2000}) then 'recycled'
        when state = 'paused' and paused_at < now() - make_interval(secs => ${s.idleRemoveMs / 1000}) then 'idle'
        when state = 'running' and active_at < now() - make_interval(secs => ${s.idlePauseMs / 1000}) then 'pause'
      end as action
    from runner_copies
    where runner_id = ${runnerId} and state in ('warm', 'running', 'paused')`;
}

/** Ends this host's queued copies whose viewer stopped asking `abandonMs` ago; returns them. */
export function endAbandonedQueue(db: Db, runnerId: string, abandonMs: number) {
  return db<{ id: string; sessionId: string }[]>`
    update runner_copies set state = 'ended', seq = seq + 1, end_reason = 'abandoned', ended_at = clock_timestamp()
    where runner_id = ${runnerId} and state = 'queued' and seen_at < now() - make_interval(secs => ${abandonMs / 1000})
    returning id, session_id`;
}
