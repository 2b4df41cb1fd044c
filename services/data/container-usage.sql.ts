import type { PendingQuery, Row } from 'postgres';
import type { Db } from '../core/infra/db.js';

// ContainerUsage (spec 2.10) of one UTC month, computed from the runner's copy events alone, so
// the api's live figure, the usage worker's roll-up and the runner's spend check cannot disagree.
//   runs               copies that answered their health path (warm-pool copies included)
//   containerHours     time from each start or resume to the next pause, stop or failure, clipped
//                      to the month; a copy still running counts up to now; paused time is free
//   failedStarts       copies that exited, were OOM-killed or never answered health, before they
//                      answered it (they never served anyone)
//   crashes            copies that exited or were OOM-killed after they answered health (issue 13;
//                      a 'stop' event whose detail is exited or oom)
//   heldBack           viewers who waited in the high-demand queue
//   medianColdStartMs  median of asked → health 200 over every copy started, warm ones included
//                      (a viewer's copy from their ask, a warm copy from its reservation; issue
//                      29, item 7); null when none

/** A month's figures, of a workspace or of one of its projects. */
interface UsageFigures {
  runs: number;
  containerHours: number;
  failedStarts: number;
  crashes: number;
  heldBack: number;
  medianColdStartMs: number | null;
}

export interface ContainerUsage extends UsageFigures {
  month: string;
}

/** Container-hours as every figure shows them: four decimals (0.36 s), never below zero. */
export const roundHours = (hours: number) => Math.round(Math.max(0, hours) * 10_000) / 10_000;

/** The UTC month holding `at`: its name (YYYY-MM) and its bounds [start, end). */
export function monthOf(at: Date): { month: string; start: Date; end: Date } {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { month: start.toISOString().slice(0, 7), start, end };
}

/**
 * Each copy's container time in [start, end), one row per copy with time in the month: the one
 * computation of billed seconds (containerUsage, its split by project, the statements). Time runs
 * from each start or resume to the next pause, stop or fail, clipped to the month; a copy still
 * running counts up to now. Intervals need each copy's events from before the month too (a copy
 * started on the 31st). `inScope` filters both copy_events and runner_copies (a workspace, or all).
 * `copies` narrows the copies further, as a condition on runner_copies (one runner's: the usage
 * reconciliation). A copy with a 'void' event (the engine never ran it: usage-reconciliation.sql.ts) counts nothing.
 *   seconds    float8, unrounded
 *   startedAt  the first counted moment in the month; endedAt the last, null while it still runs
 *   opens, closes  the seqs of the copy_events opening and closing the counted spans
 */
export function copySeconds(
  db: Db,
  inScope: PendingQuery<Row[]>,
  month: { start: Date; end: Date },
  copies: PendingQuery<Row[]> = db`true`,
) {
  const { start, end } = month;
  return db`
    select copy_id, project_id,
           sum(extract(epoch from least(coalesce(until, clock_timestamp()), ${end}::timestamptz) - greatest(at, ${start}::timestamptz)))::float8 as seconds,
           min(greatest(at, ${start}::timestamptz)) as started_at,
           case when bool_or(until is null) and clock_timestamp() < ${end}::timestamptz then null
                else max(least(coalesce(until, clock_timestamp()), ${end}::timestamptz)) end as ended_at,
           array_agg(seq order by seq) as opens,
           array_remove(array_agg(until_seq order by seq), null) as closes
    from (
      select copy_id, project_id, kind, seq, at,
             lead(at) over (partition by copy_id order by seq) as until,
             lead(seq) over (partition by copy_id order by seq) as until_seq
      from copy_events
      where ${inScope} and kind in ('start', 'resume', 'pause', 'stop', 'fail') and at < ${end}
        and copy_id in (select id from runner_copies where ${inScope} and ${copies} and asked_at < ${end} and (ended_at is null or ended_at >= ${start}))
        -- A copy the reconciliation found the engine never ran bills nothing, in every month (migrations/00040).
        and not exists (select 1 from copy_events v where v.copy_id = copy_events.copy_id and v.kind = 'void')
    ) spans
    where kind in ('start', 'resume') and coalesce(until, clock_timestamp()) > ${start}
    group by copy_id, project_id`;
}

/** The month's usage of one workspace, or of the whole platform when workspaceId is null. */
export async function containerUsage(db: Db, workspaceId: string | null, at: Date = new Date()): Promise<ContainerUsage> {
  const { month, start, end } = monthOf(at);
  const inScope = workspaceId ? db`workspace_id = ${workspaceId}` : db`true`;
  const [counts] = await db<{ runs: number; failedStarts: number; crashes: number; heldBack: number; medianColdStartMs: number | null }[]>`
    select count(*) filter (where kind = 'ready')::int as runs,
           count(*) filter (where kind = 'fail')::int as failed_starts,
           count(*) filter (where kind = 'stop' and detail in ('exited', 'oom'))::int as crashes,
           count(*) filter (where kind = 'queued')::int as held_back,
           round(percentile_cont(0.5) within group (order by cold_start_ms) filter (where kind = 'ready' and cold_start_ms is not null))::int as median_cold_start_ms
    from copy_events
    where ${inScope} and at >= ${start} and at < ${end}`;
  const [hours] = await db<{ hours: number }[]>`
    select coalesce(sum(seconds), 0)::float8 / 3600 as hours from (${copySeconds(db, inScope, { start, end })}) c`;
  return {
    month,
    runs: counts.runs,
    containerHours: roundHours(hours.hours),
    failedStarts: counts.failedStarts,
    crashes: counts.crashes,
    heldBack: counts.heldBack,
    medianColdStartMs: counts.medianColdStartMs,
  };
}

/** One project's share of a month's usage (the workspace's figures, grouped by project). */
export interface ProjectUsage extends UsageFigures {
  projectId: string;
  name: string;
}

/** The month's usage of one workspace split by project, most container-hours first; projects with nothing this month are left out. */
export async function containerUsageByProject(db: Db, workspaceId: string, at: Date = new Date()): Promise<ProjectUsage[]> {
  const { start, end } = monthOf(at);
  const counts = await db<Omit<ProjectUsage, 'name' | 'containerHours'>[]>`
    select project_id,
           count(*) filter (where kind = 'ready')::int as runs,
           count(*) filter (where kind = 'fail')::int as failed_starts,
           count(*) filter (where kind = 'stop' and detail in ('exited', 'oom'))::int as crashes,
           count(*) filter (where kind = 'queued')::int as held_back,
           round(percentile_cont(0.5) within group (order by cold_start_ms) filter (where kind = 'ready' and cold_start_ms is not null))::int as median_cold_start_ms
    from copy_events
    where workspace_id = ${workspaceId} and at >= ${start} and at < ${end}
    group by project_id`;
  const hours = await db<{ projectId: string; hours: number }[]>`
    select project_id, sum(seconds)::float8 / 3600 as hours
    from (${copySeconds(db, db`workspace_id = ${workspaceId}`, { start, end })}) c
    group by project_id`;
  const ids = [...new Set([...counts.map((c) => c.projectId), ...hours.map((h) => h.projectId)])];
  if (!ids.length) return [];
  const names = new Map(
    (await db<{ id: string; name: string }[]>`select id, name from projects where id = any(${ids}::uuid[])`).map((p) => [p.id, p.name]),
  );
  const hoursOf = new Map(hours.map((h) => [h.projectId, roundHours(h.hours)]));
  const zero = { runs: 0, failedStarts: 0, crashes: 0, heldBack: 0, medianColdStartMs: null };
  return ids
    .map((projectId) => ({
      projectId,
      // A project deleted since keeps its usage; its name may be gone with it.
      name: names.get(projectId) ?? 'A deleted project',
      ...zero,
      ...counts.find((c) => c.projectId === projectId),
      containerHours: hoursOf.get(projectId) ?? 0,
    }))
    .filter((p) => p.runs + p.failedStarts + p.crashes + p.heldBack > 0 || p.containerHours > 0)
    .sort((a, b) => b.containerHours - a.containerHours || b.runs - a.runs || a.name.localeCompare(b.name));
}
