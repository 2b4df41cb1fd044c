import type { Db, Sql } from '../core/infra/db.js';

// Analytics roll-ups (migrations/00012; issue 15): the room's events summed per project per UTC
// day. One query (`summed`) sums raw events for a span of days; the roll-up job stores what it
// gives for a past day, and analytics use it as is for today (and for any past day not rolled).
// Days are `YYYY-MM-DD` strings, UTC.

/** One project's figures for one UTC day, as stored in event_days. */
export interface DayRow {
  projectId: string;
  workspaceId: string;
  day: string;
  views: number;
  viewers: number;
  activeSeconds: number;
  /** App or page id → seconds. */
  time: Record<string, number>;
  /** Story step id → distinct sessions that took it. */
  steps: Record<string, number>;
  /** Scenario id (or `reset`) → runs. */
  scenarios: Record<string, number>;
  /** What happens next step kind → answers. */
  answers: Record<string, number>;
  comments: number;
  bounces: number;
}

/** Whose events: a workspace, optionally one project of it; null for every workspace (the roll-up). */
export interface DayScope {
  workspaceId: string | null;
  projectId?: string | null;
}

/** The day after `day`. */
export const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** The UTC day of `at`. */
export const dayOf = (at: Date) => at.toISOString().slice(0, 10);

/**
 * Raw events summed per project per UTC day, for days `from` to `to` (both included). Bounces come
 * from room_bounces by the hour they fall in. Reads room_events by `at` (room_events_at for the
 * roll-up; room_events_workspace_at or room_events_project_at when scoped).
 */
function summed(sql: Db, scope: DayScope, from: string, to: string) {
  // The day after `to` is Postgres's to work out: past 9999-12-31 it has a year JavaScript's Date cannot send.
  const start = sql`(${from}::date)::timestamp at time zone 'utc'`;
  const end = sql`(${to}::date + 1)::timestamp at time zone 'utc'`;
  const whose = scope.projectId
    ? sql`and project_id = ${scope.projectId}`
    : scope.workspaceId
      ? sql`and workspace_id = ${scope.workspaceId}`
      : sql``;
  return sql`
    with e as (
      select project_id, workspace_id, (at at time zone 'utc')::date as day, kind, subject, seconds, session_id
      from room_events where at >= ${start} and at < ${end} ${whose}
    ),
    -- A viewer is a person: one name on one link, whatever devices and browsers it came from
    -- (a public room's sessions, or a session that gave no name, count one each).
    people as (
      select s.id as session_id, coalesce(s.link_id::text || ':' || lower(btrim(s.viewer_name)), s.id::text) as person
      from room_sessions s where s.id in (select distinct session_id from e where kind = 'entry')
    ),
    counts as (
      select project_id, workspace_id, day,
             count(*) filter (where kind = 'entry')::int as views,
             count(distinct coalesce(p.person, e.session_id::text)) filter (where kind = 'entry')::int as viewers,
             coalesce(sum(seconds) filter (where kind = 'time'), 0)::bigint as active_seconds,
             count(*) filter (where kind = 'comment')::int as comments
      from e left join people p using (session_id) group by project_id, workspace_id, day
    ),
    keyed as (
      select project_id, day, kind, subject,
             case kind when 'time' then sum(seconds) when 'step' then count(distinct session_id) else count(*) end as n
      from e where kind in ('time', 'step', 'scenario', 'answer') and subject is not null
      group by project_id, day, kind, subject
    ),
    maps as (
      select project_id, day,
             coalesce(jsonb_object_agg(subject, n) filter (where kind = 'time'), '{}') as time,
             coalesce(jsonb_object_agg(subject, n) filter (where kind = 'step'), '{}') as steps,
             coalesce(jsonb_object_agg(subject, n) filter (where kind = 'scenario'), '{}') as scenarios,
             coalesce(jsonb_object_agg(subject, n) filter (where kind = 'answer'), '{}') as answers
      from keyed group by project_id, day
    ),
    bounced as (
      select project_id, workspace_id, (hour at time zone 'utc')::date as day, count(*)::int as bounces
      from room_bounces where hour >= ${start} and hour < ${end} ${whose}
      group by project_id, workspace_id, day
    )
    select coalesce(c.project_id, b.project_id) as project_id,
           coalesce(c.workspace_id, b.workspace_id) as workspace_id,
           coalesce(c.day, b.day) as day,
           coalesce(c.views, 0) as views, coalesce(c.viewers, 0) as viewers,
           coalesce(c.active_seconds, 0) as active_seconds,
           coalesce(m.time, '{}') as time, coalesce(m.steps, '{}') as steps,
           coalesce(m.scenarios, '{}') as scenarios, coalesce(m.answers, '{}') as answers,
           coalesce(c.comments, 0) as comments, coalesce(b.bounces, 0) as bounces
    from counts c
    full join bounced b on b.project_id = c.project_id and b.day = c.day
    left join maps m on m.project_id = coalesce(c.project_id, b.project_id) and m.day = coalesce(c.day, b.day)`;
}

const dayColumns = (sql: Db) => sql`
  project_id, workspace_id, to_char(day, 'YYYY-MM-DD') as day, views, viewers, active_seconds::float8 as active_seconds,
  time, steps, scenarios, answers, comments, bounces`;

/**
 * Rolls one past UTC day up for every project: its rows are replaced in one transaction (so a
 * re-run gives the same rows) and the day is marked rolled. Refuses a day that has not ended: a
 * partial day stored as final would hide the rest of it. Returns the rows written.
 */
export async function rollDay(sql: Sql, day: string): Promise<number> {
  return sql.begin(async (tx) => {
    const [{ ended }] = await tx<{ ended: boolean }[]>`select ${nextDay(day)}::date <= (now() at time zone 'utc')::date as ended`;
    if (!ended) throw new Error(`day ${day} has not ended (UTC)`);
    // Two rolls of one day at once would both insert; the second waits for the first.
    await tx`select pg_advisory_xact_lock(hashtext(${`event_days:${day}`}))`;
    await tx`delete from event_days where day = ${day}::date`;
    const written = await tx`
      insert into event_days (project_id, workspace_id, day, views, viewers, active_seconds, time, steps, scenarios, answers, comments, bounces)
      select s.project_id, s.workspace_id, s.day, s.views, s.viewers, s.active_seconds, s.time, s.steps, s.scenarios, s.answers, s.comments, s.bounces
      from (${summed(tx, { workspaceId: null }, day, day)}) s
      where exists (select 1 from projects p where p.id = s.project_id)`;
    await tx`
      insert into event_days_rolled (day) values (${day}::date)
      on conflict (day) do update set rolled_at = clock_timestamp()`;
    return written.count;
  }) as Promise<number>;
}

/** The days from `from` to `to` that the job has rolled. */
export async function rolledDays(sql: Db, from: string, to: string): Promise<Set<string>> {
  const rows = await sql<{ day: string }[]>`
    select to_char(day, 'YYYY-MM-DD') as day from event_days_rolled where day between ${from}::date and ${to}::date`;
  return new Set(rows.map((r) => r.day));
}

/** The last day rolled, or null when none was. */
export async function lastRolledDay(sql: Db): Promise<string | null> {
  const [row] = await sql<{ day: string | null }[]>`select to_char(max(day), 'YYYY-MM-DD') as day from event_days_rolled`;
  return row.day;
}

/** Stored roll-ups of the scope's projects (not deleted) for days `from` to `to`. */
export function rolledRows(sql: Db, scope: DayScope & { workspaceId: string }, from: string, to: string) {
  const whose = scope.projectId ? sql`d.project_id = ${scope.projectId}` : sql`d.workspace_id = ${scope.workspaceId}`;
  return sql<DayRow[]>`
    select ${dayColumns(sql)} from event_days d
    where ${whose} and d.day between ${from}::date and ${to}::date
      and exists (select 1 from projects p where p.id = d.project_id and p.deleted_at is null)`;
}

/** The same figures summed from raw events, for days the roll-ups do not hold (today, or not yet rolled). */
export function rawRows(sql: Db, scope: DayScope & { workspaceId: string }, from: string, to: string) {
  return sql<DayRow[]>`
    select ${dayColumns(sql)} from (${summed(sql, scope, from, to)}) d
    where exists (select 1 from projects p where p.id = d.project_id and p.deleted_at is null)`;
}
