import type { Db } from '../core/infra/db.js';
import { copySeconds } from './container-usage.sql.js';

// Usage against the engine's own record (issue 46, item 1; migrations/00040; docs/runner.md
// "Usage and billing"). The runner keeps the engine's record of each copy's run on its row as it
// removes it (the engine forgets a removed container), reads one runner's billed seconds beside
// it, and writes the two fixes: a copy the engine ran that no record owned is accounted to the
// workspace its labels name ('unowned'), and a billed copy the engine never ran is voided. Both
// are new rows and events, never an update of what was billed: copySeconds computes the fixed
// figure, and a closed month's statement is corrected in the next one (usage-statements.sql.ts).

/** The engine's record of a run, on its clock; startedAt null when it never ran. */
export interface KeptRun {
  startedAt: Date | null;
  finishedAt: Date | null;
}

/**
 * Keeps the engine's record of the copy's run as the runner removes its unit (null: the engine held
 * none). The first record kept stays: a copy is removed more than once (a failure, then its stop).
 *
 * `closingSeq`, given by the path that has just ended the copy and now removes it, names the
 * `stop`/`fail` event it wrote: that event is dated at the engine's finish. The record is written
 * before the engine is asked (a runner that dies in between leaves a record saying what to do),
 * so the event's first date is the moment the runner decided, not the moment the engine ended
 * the unit (a kill and its wait: tenths of a second, up to KILL_WAIT_MS); a copy that exited on
 * its own finished before it. Never before the copy's previous billed event (no span runs
 * backwards), never in the future. A removal retried later by the reconcile gives no seq: what
 * the engine ran after a failed removal stays the platform's cost (issue 46).
 */
export async function keepEngineRun(db: Db, copyId: string, run: KeptRun | null, closingSeq: number | null = null): Promise<void> {
  await keepEngineRuns(db, [{ copyId, run, closingSeq }]);
}

/** One copy's record in a batch of `keepEngineRuns`. */
export interface KeptRunOf {
  copyId: string;
  run: KeptRun | null;
  closingSeq: number | null;
}

/**
 * `keepEngineRun` for many copies in one statement (a host's removals, group-committed:
 * runner/copies/end-writes.ts). A copy named twice keeps what two calls in turn would keep.
 */
export async function keepEngineRuns(db: Db, runs: KeptRunOf[]): Promise<void> {
  if (!runs.length) return;
  const given = runs.map((r) => ({
    copy_id: r.copyId,
    started_at: r.run?.startedAt?.toISOString() ?? null,
    finished_at: r.run?.finishedAt?.toISOString() ?? null,
    closing_seq: r.closingSeq,
  }));
  await db`
    with given as (
      -- A copy named twice: each column's first value given, as two calls in turn would coalesce.
      select copy_id,
        (array_agg(started_at order by n) filter (where started_at is not null))[1] as started_at,
        (array_agg(finished_at order by n) filter (where finished_at is not null))[1] as finished_at,
        (array_agg(closing_seq order by n) filter (where closing_seq is not null))[1] as closing_seq
      from rows from (jsonb_to_recordset(${db.json(given as never)})
        as (copy_id uuid, started_at timestamptz, finished_at timestamptz, closing_seq int))
        with ordinality as g(copy_id, started_at, finished_at, closing_seq, n)
      group by copy_id
    ), kept as (
      update runner_copies c
      set engine_started_at = coalesce(c.engine_started_at, g.started_at),
          engine_finished_at = coalesce(c.engine_finished_at, g.finished_at),
          engine_checked_at = coalesce(c.engine_checked_at, clock_timestamp())
      from given g
      where c.id = g.copy_id
      returning c.id, c.engine_finished_at, g.closing_seq
    )
    update copy_events e
    set at = greatest(least(k.engine_finished_at, clock_timestamp()), (
          select max(p.at) from copy_events p
          where p.copy_id = e.copy_id and p.seq < e.seq and p.kind in ('start', 'resume', 'pause', 'stop', 'fail')))
    from kept k
    where k.closing_seq is not null and k.engine_finished_at is not null
      and e.copy_id = k.id and e.seq = k.closing_seq and e.kind in ('stop', 'fail')`;
}

/** A unit the engine ran that no live record owned, as its labels name it. */
export interface UnownedRun {
  copyId: string;
  runnerId: string;
  workspaceId: string;
  projectId: string;
  buildId: string;
  startedAt: Date;
  finishedAt: Date;
}

/**
 * Accounts the engine time of a unit no live record owned to the workspace that made it; the
 * seconds newly billed, or null when nothing was (already accounted, nothing unbilled, or its
 * workspace or project is gone). With no record at all the copy gets one (origin 'unowned',
 * ended); with an ended record, the time after the last it billed is added. Its span is a 'start'
 * and a 'stop' with detail 'unowned': copySeconds bills it like any other. Once per copy.
 */
export async function accountUnowned(db: Db, u: UnownedRun): Promise<number | null> {
  if (u.finishedAt <= u.startedAt) return null;
  const [made] = await db<{ seconds: number }[]>`
    with made as (
      insert into runner_copies (id, runner_id, workspace_id, project_id, build_id, session_id, origin, state, end_reason, seq,
                                 asked_at, started_at, ended_at, engine_started_at, engine_finished_at, engine_checked_at)
      select ${u.copyId}, ${u.runnerId}, ${u.workspaceId}, ${u.projectId}, ${u.buildId}, null, 'unowned', 'ended', 'unowned', 2,
             ${u.startedAt}, ${u.startedAt}, ${u.finishedAt}, ${u.startedAt}, ${u.finishedAt}, clock_timestamp()
      where exists (select 1 from workspaces where id = ${u.workspaceId}) and exists (select 1 from projects where id = ${u.projectId})
      on conflict (id) do nothing
      returning id, workspace_id, project_id, build_id
    ), spans as (
      insert into copy_events (copy_id, seq, workspace_id, project_id, build_id, kind, at, detail)
      select id, 1, workspace_id, project_id, build_id, 'start', ${u.startedAt}, 'unowned' from made
      union all
      select id, 2, workspace_id, project_id, build_id, 'stop', ${u.finishedAt}, 'unowned' from made
      on conflict (copy_id, seq) do nothing
    )
    select extract(epoch from ${u.finishedAt}::timestamptz - ${u.startedAt}::timestamptz)::float8 as seconds from made`;
  if (made) return made.seconds;
  return accountAfterRecord(db, u);
}

/** The engine time of an ended record's unit after the last moment the record billed (all of it when it billed none). */
async function accountAfterRecord(db: Db, u: UnownedRun): Promise<number | null> {
  const [row] = await db<{ seconds: number }[]>`
    with billed as (
      select max(at) filter (where kind in ('pause', 'stop', 'fail')) as closed, bool_or(kind in ('start', 'resume')) as opened,
             bool_or(detail = 'unowned') as accounted, bool_or(kind = 'void') as voided
      from copy_events where copy_id = ${u.copyId}
    ), span as (
      select case when billed.opened then greatest(${u.startedAt}::timestamptz, billed.closed) else ${u.startedAt}::timestamptz end as since
      from billed where not coalesce(billed.accounted, false) and not coalesce(billed.voided, false)
    ), moved as (
      update runner_copies c set seq = c.seq + 2, ended_at = greatest(c.ended_at, ${u.finishedAt}),
             engine_started_at = coalesce(c.engine_started_at, ${u.startedAt}), engine_finished_at = coalesce(c.engine_finished_at, ${u.finishedAt}),
             engine_checked_at = coalesce(c.engine_checked_at, clock_timestamp())
      from span
      where c.id = ${u.copyId} and c.state = 'ended' and span.since < ${u.finishedAt}
      returning c.id, c.seq, c.workspace_id, c.project_id, c.build_id, span.since
    ), spans as (
      insert into copy_events (copy_id, seq, workspace_id, project_id, build_id, kind, at, detail)
      select id, seq - 1, workspace_id, project_id, build_id, 'start', since, 'unowned' from moved
      union all
      select id, seq, workspace_id, project_id, build_id, 'stop', ${u.finishedAt}, 'unowned' from moved
      on conflict (copy_id, seq) do nothing
    )
    select extract(epoch from ${u.finishedAt}::timestamptz - since)::float8 as seconds from moved`;
  return row?.seconds ?? null;
}

/**
 * Voids an ended copy the engine never ran: a 'void' event (detail says why), after which
 * copySeconds bills it nothing. True when this call voided it; false when it already was, or lives.
 */
export async function voidUnrun(db: Db, copyId: string, detail: string): Promise<boolean> {
  const rows = await db`
    with moved as (
      update runner_copies set seq = seq + 1
      where id = ${copyId} and state = 'ended' and not exists (select 1 from copy_events where copy_id = ${copyId} and kind = 'void')
      returning id, seq, workspace_id, project_id, build_id
    )
    insert into copy_events (copy_id, seq, workspace_id, project_id, build_id, kind, detail)
    select id, seq, workspace_id, project_id, build_id, 'void', ${detail.slice(0, 500)} from moved
    on conflict (copy_id, seq) do nothing
    returning copy_id`;
  return rows.length > 0;
}

/** One copy of a runner whose life touches the window, its billed seconds beside the engine's kept record. */
export interface BilledCopy {
  copyId: string;
  workspaceId: string;
  projectId: string;
  state: string;
  origin: string;
  /** Why it ended ('vanished': the runner found its unit gone while the record was live). */
  endReason: string | null;
  /** Seconds billed in the window (copySeconds), and paused there (free, and not in the engine's record). */
  billedSeconds: number;
  pausedSeconds: number;
  engineStartedAt: Date | null;
  engineFinishedAt: Date | null;
  engineCheckedAt: Date | null;
  voided: boolean;
}

/**
 * A runner's copies whose life touches [start, end), with what each billed in it and the engine
 * record kept at its removal. Copies voided are listed (billing nothing) so a second pass sees
 * them settled.
 */
export function billedCopiesOf(db: Db, runnerId: string, window: { start: Date; end: Date }) {
  const { start, end } = window;
  const mine = db`runner_id = ${runnerId}`;
  return db<BilledCopy[]>`
    with billed as (${copySeconds(db, db`true`, window, mine)}),
    paused as (
      select copy_id, sum(extract(epoch from least(coalesce(until, clock_timestamp()), ${end}::timestamptz) - greatest(at, ${start}::timestamptz)))::float8 as seconds
      from (
        select copy_id, kind, at, lead(at) over (partition by copy_id order by seq) as until
        from copy_events
        where kind in ('start', 'resume', 'pause', 'stop', 'fail') and at < ${end}
          and copy_id in (select id from runner_copies where ${mine} and asked_at < ${end} and (ended_at is null or ended_at >= ${start}))
      ) spans
      where kind = 'pause' and coalesce(until, clock_timestamp()) > ${start}
      group by copy_id
    )
    select c.id as copy_id, c.workspace_id, c.project_id, c.state, c.origin, c.end_reason,
           coalesce(b.seconds, 0)::float8 as billed_seconds, coalesce(p.seconds, 0)::float8 as paused_seconds,
           c.engine_started_at, c.engine_finished_at, c.engine_checked_at,
           exists (select 1 from copy_events v where v.copy_id = c.id and v.kind = 'void') as voided
    from runner_copies c
    left join billed b on b.copy_id = c.id
    left join paused p on p.copy_id = c.id
    where c.runner_id = ${runnerId} and c.asked_at < ${end} and (c.ended_at is null or c.ended_at >= ${start})
      and c.state <> 'queued'
    order by c.asked_at`;
}
