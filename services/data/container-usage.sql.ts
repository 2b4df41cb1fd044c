import type { Db } from '../core/db.js';

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

/** The UTC month holding `at`: its name (YYYY-MM) and its bounds [start, end). */
export function monthOf(at: Date): { month: string; start: Date; end: Date } {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { month: start.toISOString().slice(0, 7), start, end };
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
  // Intervals need each copy's events from before the month too (a copy started on the 31st).
  const [hours] = await db<{ hours: number }[]>`
    with spans as (
      select kind, at, lead(at) over (partition by copy_id order by seq) as until
      from copy_events
      where ${inScope} and kind in ('start', 'resume', 'pause', 'stop', 'fail') and at < ${end}
        and copy_id in (select id from runner_copies where ${inScope} and asked_at < ${end} and (ended_at is null or ended_at >= ${start}))
    )
    select coalesce(sum(extract(epoch from least(coalesce(until, clock_timestamp()), ${end}::timestamptz) - greatest(at, ${start}::timestamptz))), 0)::float8 / 3600 as hours
    from spans
    where kind in ('start', 'resume') and coalesce(until, clock_timestamp()) > ${start}`;
  return {
    month,
    runs: counts.runs,
    containerHours: Math.round(Math.max(0, hours.hours) * 10_000) / 10_000,
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
  // The same spans as containerUsage, summed per project.
  const hours = await db<{ projectId: string; hours: number }[]>`
    with spans as (
      select project_id, kind, at, lead(at) over (partition by copy_id order by seq) as until
      from copy_events
      where workspace_id = ${workspaceId} and kind in ('start', 'resume', 'pause', 'stop', 'fail') and at < ${end}
        and copy_id in (select id from runner_copies where workspace_id = ${workspaceId} and asked_at < ${end} and (ended_at is null or ended_at >= ${start}))
    )
    select project_id, coalesce(sum(extract(epoch from least(coalesce(until, clock_timestamp()), ${end}::timestamptz) - greatest(at, ${start}::timestamptz))), 0)::float8 / 3600 as hours
    from spans
    where kind in ('start', 'resume') and coalesce(until, clock_timestamp()) > ${start}
    group by project_id`;
  const ids = [...new Set([...counts.map((c) => c.projectId), ...hours.map((h) => h.projectId)])];
  if (!ids.length) return [];
  const names = new Map(
    (await db<{ id: string; name: string }[]>`select id, name from projects where id = any(${ids}::uuid[])`).map((p) => [p.id, p.name]),
  );
  const hoursOf = new Map(hours.map((h) => [h.projectId, Math.round(Math.max(0, h.hours) * 10_000) / 10_000]));
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
