import type { Db } from '../core/db.js';
import { liveStates, type CopyRow } from './copies.sql.js';
import type { PlanName } from '../core/plans.js';

// Admission in batches (runner/copies/admission-batch.ts, docs/scale.md "Admission"): a batch of
// viewers is decided against one read of the counts and written by one statement, under the same
// advisory locks as a single admission, held for four round trips a batch instead of ten a viewer.

const live = liveStates as readonly string[];

const columns =
  'id, runner_id, workspace_id, project_id, build_id, session_id, origin, state, end_reason, container_id, network_id, host, port, seq, asked_at, admitted_at, started_at, ready_at, claimed_at, paused_at, active_at, seen_at, ended_at, cold_start_ms';

/**
 * The workspaces' locks in the order given (the caller sorts them: two batches sharing workspaces
 * then never wait on each other in a circle), then the host's: the order every admission keeps.
 * One statement: the function scan yields the keys in array order, and each lock is taken as its
 * row is produced.
 */
export async function lockWorkspacesAndHost(tx: Db, workspaceIds: string[], runnerId: string): Promise<void> {
  const keys = [...workspaceIds.map((w) => `runner.workspace:${w}`), `runner.host:${runnerId}`];
  await tx`select pg_advisory_xact_lock(hashtext(k)) from unnest(${keys}::text[]) with ordinality as t(k, i) order by i`;
}

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

/** The plan of each workspace (a team with none is held to Free's: workspaces.sql.ts `effectivePlan`). */
export async function plansOf(db: Db, workspaceIds: string[]): Promise<Map<string, PlanName>> {
  const rows = await db<{ id: string; plan: PlanName | null }[]>`select id, plan from workspaces where id = any(${workspaceIds}::uuid[])`;
  return new Map(rows.map((r) => [r.id, r.plan ?? 'free']));
}

/** What a batch is decided against, read once under the locks. */
export interface AdmissionCounts {
  /** Sessions of the batch that already have a copy not ended. */
  existing: string[];
  /** Per session of the batch: its latest copy, as `copyOfSession` orders them (the attempt an ask must be the next of). */
  latest: Record<string, string>;
  /** Per project: copies held by a viewer session, not ended (the room's viewers at once; a place in the queue counts). */
  rooms: Record<string, number>;
  /** Per workspace: [copies live, viewers queued, copies that may be given up (warm or paused)]. */
  workspaces: Record<string, [number, number, number]>;
  /** The host: [copies live, copies that may be given up]. */
  host: [number, number];
  /** Per build: this host's unclaimed copies a viewer may take (healthy first, then still starting), locked for this batch. */
  warm: Record<string, string[]>;
}

/** One read of everything a batch needs (the warm copies it may hand out are locked for it). */
export async function admissionCounts(
  tx: Db,
  q: { runnerId: string; sessionIds: string[]; projectIds: string[]; workspaceIds: string[]; buildIds: string[]; healthyOnly?: boolean },
): Promise<AdmissionCounts> {
  // A viewer arriving may take a copy still starting (it becomes theirs when healthy); one let in
  // from the queue takes only a healthy one (it has waited enough).
  const warmStates = q.healthyOnly ? ['warm'] : ['creating', 'starting', 'warm'];
  const [row] = await tx<AdmissionCounts[]>`
    with warm as (
      select id, build_id, (state = 'warm') as healthy, asked_at from runner_copies
      where runner_id = ${q.runnerId} and build_id = any(${q.buildIds}::uuid[]) and session_id is null
        and state = any(${warmStates})
      for update skip locked
    )
    select
      (select coalesce(json_agg(session_id), '[]') from runner_copies
        where session_id = any(${q.sessionIds}::uuid[]) and state <> 'ended') as existing,
      (select coalesce(json_object_agg(session_id, id), '{}') from (
        select distinct on (session_id) session_id, id from runner_copies where session_id = any(${q.sessionIds}::uuid[])
        order by session_id, (state <> 'ended') desc, asked_at desc) l) as latest,
      (select coalesce(json_object_agg(project_id, n), '{}') from (
        select project_id, count(*) as n from runner_copies
        where project_id = any(${q.projectIds}::uuid[]) and session_id is not null and state <> 'ended' group by project_id) r) as rooms,
      (select coalesce(json_object_agg(workspace_id, json_build_array(n, queued, spare)), '{}') from (
        select workspace_id,
               count(*) filter (where state = any(${live as string[]})) as n,
               count(*) filter (where state = 'queued') as queued,
               count(*) filter (where state in ('warm', 'paused')) as spare
        from runner_copies where workspace_id = any(${q.workspaceIds}::uuid[]) and state <> 'ended' group by workspace_id) w) as workspaces,
      (select json_build_array(count(*) filter (where state = any(${live as string[]})), count(*) filter (where state in ('warm', 'paused')))
        from runner_copies where runner_id = ${q.runnerId} and state <> 'ended') as host,
      (select coalesce(json_object_agg(build_id, ids), '{}') from (
        select build_id, json_agg(id order by healthy desc, asked_at) as ids from warm group by build_id) b) as warm`;
  return row;
}

/** A copy a batch writes: a reserved slot (creating) or a place in the queue (queued). */
export interface BatchCopy {
  id: string;
  runnerId: string;
  workspaceId: string;
  projectId: string;
  buildId: string;
  sessionId: string;
  state: 'creating' | 'queued';
}

/**
 * Writes a batch's copies in the order given (asked_at and admitted_at follow it: each row takes
 * the clock as it is written), with a `queued` event for each place in the queue. A session that
 * already has a copy not ended keeps it (the unique index decides): its row is not written.
 */
export async function insertCopies(tx: Db, copies: BatchCopy[]): Promise<CopyRow[]> {
  if (!copies.length) return [];
  return tx<CopyRow[]>`
    with wanted as (
      select * from jsonb_to_recordset(${tx.json(copies.map((c, i) => ({ ...c, i })) as never)}) as c(
        id uuid, "runnerId" text, "workspaceId" uuid, "projectId" uuid, "buildId" uuid, "sessionId" uuid, state text, i bigint)
    ), made as (
      insert into runner_copies (id, runner_id, workspace_id, project_id, build_id, session_id, origin, state, admitted_at, active_at)
      select id, "runnerId", "workspaceId", "projectId", "buildId", "sessionId", 'viewer', state,
             case when state = 'creating' then clock_timestamp() end, clock_timestamp()
      from wanted order by i
      on conflict (session_id) where state <> 'ended' do nothing
      returning ${tx.unsafe(columns)}
    ), events as (
      insert into copy_events (copy_id, seq, workspace_id, project_id, build_id, kind)
      select id, seq, workspace_id, project_id, build_id, 'queued' from made where state = 'queued'
      on conflict (copy_id, seq) do nothing
    )
    select * from made`;
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
