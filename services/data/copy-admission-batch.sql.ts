import type { Db, Sql } from '../core/infra/db.js';
import { liveStates, type CopyRow } from './copies.sql.js';

// Admission in batches (runner/copies/admission-batch.ts, docs/scale.md "Admission"): arrivals are
// decided by one statement (admit_arrivals, migrations/00035), a pass over the queue against one
// read of the counts, under the same advisory locks as every admission.

const live = liveStates as readonly string[];

const columns =
  'id, runner_id, workspace_id, project_id, build_id, session_id, origin, state, end_reason, container_id, network_id, host, port, seq, asked_at, admitted_at, started_at, ready_at, claimed_at, paused_at, active_at, seen_at, ended_at, cold_start_ms';

/**
 * Takes the locks of those workspaces nobody else holds now, without waiting (a host looking for
 * queued viewers to let in leaves a workspace another host is letting in to that host), then the
 * host's, waiting. Returns the workspaces taken, in the order given.
 */
export async function tryWorkspacesThenHost(tx: Db, workspaceIds: string[], runnerId: string): Promise<string[]> {
  const rows = await tx<{ w: string }[]>`
    select w from unnest(${workspaceIds}::uuid[]) with ordinality as t(w, i)
    where pg_try_advisory_xact_lock(hashtext('runner.workspace:' || w::text)) order by i`;
  await tx`select pg_advisory_xact_lock(hashtext(${`runner.host:${runnerId}`}))`;
  return rows.map((r) => r.w);
}

/** What a pass over the queue is decided against, read once under the locks. */
export interface AdmissionCounts {
  /** Per workspace: [copies live, copies that may be given up (warm or paused)]. */
  workspaces: Record<string, [number, number]>;
  /** The host: [copies live, copies that may be given up]. */
  host: [number, number];
  /** Per build: this host's healthy unclaimed copies a waiting viewer may take, locked for this pass. */
  warm: Record<string, string[]>;
}

/** One read of everything a pass needs (the warm copies it may hand out are locked for it). */
export async function admissionCounts(
  tx: Db,
  q: { runnerId: string; workspaceIds: string[]; buildIds: string[] },
): Promise<AdmissionCounts> {
  const [row] = await tx<AdmissionCounts[]>`
    with warm as (
      select id, build_id, asked_at from runner_copies
      where runner_id = ${q.runnerId} and build_id = any(${q.buildIds}::uuid[]) and session_id is null and state = 'warm'
      for update skip locked
    )
    select
      (select coalesce(json_object_agg(workspace_id, json_build_array(n, spare)), '{}') from (
        select workspace_id,
               count(*) filter (where state = any(${live as string[]})) as n,
               count(*) filter (where state in ('warm', 'paused')) as spare
        from runner_copies where workspace_id = any(${q.workspaceIds}::uuid[]) and state <> 'ended' group by workspace_id) w) as workspaces,
      (select json_build_array(count(*) filter (where state = any(${live as string[]})), count(*) filter (where state in ('warm', 'paused')))
        from runner_copies where runner_id = ${q.runnerId} and state <> 'ended') as host,
      (select coalesce(json_object_agg(build_id, ids), '{}') from (
        select build_id, json_agg(id order by asked_at) as ids from warm group by build_id) b) as warm`;
  return row;
}

/** An arrival as `admit_arrivals` takes it (migrations/00035_admit_arrivals.sql). */
export interface ArrivalAsk {
  sessionId: string;
  workspaceId: string;
  projectId: string;
  buildId: string;
  copyCap: number;
  roomCap: number;
  after?: string | null;
}

export interface ArrivalDecision {
  i: number;
  /** `busy`: its workspace was being decided by another host, and `wait` was off: nothing done, ask again. */
  kind: 'existing' | 'full' | 'claimed' | 'admitted' | 'queued' | 'evicted' | 'busy';
  reason: 'plan' | 'room' | null;
  copyId: string | null;
}

/**
 * Decides a batch of arrivals on this host in one statement: the locks, the counts, each
 * decision and its copy, all inside Postgres (the function's header says how). Autocommit: the
 * locks go with the statement. With `wait` off, the asks of a workspace another host holds answer
 * `busy` at once (migrations/00043) instead of the batch waiting for it.
 */
export function admitArrivals(sql: Sql, runnerId: string, hostCapacity: number, asks: ArrivalAsk[], wait = true) {
  const admit = wait ? sql`admit_arrivals` : sql`admit_arrivals_not_waiting`;
  return sql<ArrivalDecision[]>`select i, kind, reason, copy_id from ${admit}(${runnerId}, ${hostCapacity}, ${sql.json(asks as never)})`;
}

/**
 * The copies with these ids, a queued one with its place in its workspace's line counted in the
 * same read (as copies.sql.ts placeOf counts it): a batch's queued viewers are told their place
 * without a read each.
 */
export function copiesByIds(db: Db, ids: string[]) {
  if (!ids.length) return Promise.resolve([] as CopyRow[]);
  return db<CopyRow[]>`
    with wanted as (select ${db.unsafe(columns)} from runner_copies where id = any(${ids}::uuid[])),
    lines as (
      select q.id, count(*) over (partition by q.workspace_id order by q.asked_at, q.id)::int as place
      from runner_copies q
      where q.state = 'queued' and q.workspace_id in (select workspace_id from wanted where state = 'queued')
    )
    select wanted.*, lines.place from wanted left join lines using (id)`;
}

/** Queued viewers of each workspace, in their order, at most `each` per workspace. */
export function queuedIn(tx: Db, workspaceIds: string[], each: number) {
  return tx<Pick<CopyRow, 'id' | 'workspaceId' | 'buildId' | 'sessionId'>[]>`
    select q.id, q.workspace_id, q.build_id, q.session_id
    from unnest(${workspaceIds}::uuid[]) with ordinality as w(id, i)
    cross join lateral (
      select id, workspace_id, build_id, session_id, asked_at from runner_copies
      where workspace_id = w.id and state = 'queued' order by asked_at, id limit ${each}
    ) q
    order by w.i, q.asked_at, q.id`;
}

/**
 * Lets queued viewers in on this host, in the order given: each becomes `creating` here. One
 * statement; admitted_at is the statement's first clock reading plus a microsecond per place, so
 * that it follows the queue's order whatever order the rows are updated in.
 */
export function admitQueuedCopies(tx: Db, ids: string[], runnerId: string) {
  if (!ids.length) return Promise.resolve([] as CopyRow[]);
  return tx<CopyRow[]>`
    with clock as (select clock_timestamp() as t),
    picked as (select id, i from unnest(${ids}::uuid[]) with ordinality as p(id, i))
    update runner_copies c set state = 'creating', seq = c.seq + 1, runner_id = ${runnerId},
      admitted_at = clock.t + picked.i * interval '1 microsecond', active_at = clock.t
    from picked, clock
    where c.id = picked.id and c.state = 'queued'
    returning ${tx.unsafe(
      columns
        .split(', ')
        .map((c) => `c.${c}`)
        .join(', '),
    )}`;
}
