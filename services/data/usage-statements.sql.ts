import type { PendingQuery, Row } from 'postgres';
import type { Db } from '../core/infra/db.js';
import { copySeconds } from './container-usage.sql.js';
import { viewerSecondsByProject } from './visits.sql.js';

// Statements (issue 46; migrations/00038): a workspace's month, one line per copy, computed live
// from copy_events by copySeconds (the computation of containerUsage and the spend check) while
// the month is open, and read from usage_statement_lines once the roll-up closed it. A closed
// month never changes; what a later recomputation of it finds different is a correction line of
// the month being read, naming the month and the copy it corrects.

/** A month's bounds, [start, end) in UTC. */
export interface MonthBounds {
  start: Date;
  end: Date;
}

/** A statement looks this many months back for closed months to correct (docs/decisions/usage-and-billing.md). */
export const correctionMonths = 3;

/** A line as the SQL gives it (corrects_month null for a copy's own use). */
export interface StatementLineRow {
  copyId: string;
  projectId: string;
  startedAt: Date;
  endedAt: Date | null;
  seconds: number;
  correctsMonth: Date | null;
  eventSeqs: number[];
}

/**
 * When the workspace's month closed, or null while it is open: its own final roll-up, or a later
 * month's (a month that had no copies when the roll-up passed closes with the next one that had).
 */
export async function monthClosedAt(db: Db, workspaceId: string, start: Date): Promise<Date | null> {
  const [row] = await db<{ rolledAt: Date }[]>`
    select rolled_at from usage_months where workspace_id = ${workspaceId} and final and month >= ${start} order by month limit 1`;
  return row?.rolledAt ?? null;
}

const shift = (start: Date, months: number) => new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + months, 1));

/** The closed months a statement of the open month starting at `start` corrects, newest first. */
async function monthsToCorrect(db: Db, workspaceId: string, start: Date): Promise<MonthBounds[]> {
  const [row] = await db<{ latest: Date | null }[]>`
    select max(month)::timestamptz as latest from usage_months where workspace_id = ${workspaceId} and final and month < ${start}`;
  const latest = row.latest;
  if (!latest) return [];
  return Array.from({ length: correctionMonths }, (_, i) => ({ start: shift(start, -i - 1), end: shift(start, -i) })).filter(
    (m) => m.start <= latest,
  );
}

/**
 * The corrections of closed month `c` a statement of the month starting at `before` lists: each
 * copy whose seconds in `c`, computed now, differ by a millisecond or more from what `c` billed
 * plus what the closed months between listed as its corrections.
 */
function correctionsOf(db: Db, workspaceId: string, c: MonthBounds, before: Date) {
  return db`
    select coalesce(l.copy_id, b.copy_id) as copy_id, coalesce(l.project_id, b.project_id) as project_id,
           coalesce(l.started_at, b.started_at) as started_at, case when l.copy_id is null then b.ended_at else l.ended_at end as ended_at,
           coalesce(l.seconds, 0) - coalesce(b.seconds, 0) as seconds, ${c.start}::timestamptz as corrects_month,
           -- A copy voided since (the engine never ran it) is traced to its 'void' event.
           array(select unnest(coalesce(l.opens || l.closes, array(select seq from copy_events v where v.copy_id = b.copy_id and v.kind = 'void'))) order by 1) as event_seqs
    from (${copySeconds(db, db`workspace_id = ${workspaceId}`, c)}) l
    full join (
      select copy_id, (array_agg(project_id))[1] as project_id, min(started_at) as started_at, max(ended_at) as ended_at, sum(seconds) as seconds
      from usage_statement_lines
      where workspace_id = ${workspaceId}
        and ((month = ${c.start} and corrects_month is null) or (corrects_month = ${c.start} and month < ${before}))
      group by copy_id
    ) b on b.copy_id = l.copy_id
    where abs(coalesce(l.seconds, 0) - coalesce(b.seconds, 0)) >= 0.001`;
}

/**
 * The SQL of a month's lines, columns as StatementLineRow. Held in an object: a query is a
 * thenable, and an async function returning one would run it.
 */
export interface LinesQuery {
  query: PendingQuery<Row[]>;
}

/** An open month's lines, computed now: each copy's use, then the corrections of closed months. */
async function liveLines(db: Db, workspaceId: string, month: MonthBounds): Promise<LinesQuery> {
  const corrections = (await monthsToCorrect(db, workspaceId, month.start)).reduce(
    (union, c) => db`${union} union all ${correctionsOf(db, workspaceId, c, month.start)}`,
    db``,
  );
  const query = db`
    select copy_id, project_id, started_at, ended_at, seconds, null::timestamptz as corrects_month,
           array(select unnest(opens || closes) order by 1) as event_seqs
    from (${copySeconds(db, db`workspace_id = ${workspaceId}`, month)}) c
    ${corrections}`;
  return { query };
}

/** A month's lines: frozen when closed, else live. */
export async function statementLines(db: Db, workspaceId: string, month: MonthBounds, closed: boolean): Promise<LinesQuery> {
  if (!closed) return liveLines(db, workspaceId, month);
  const query = db`
    select copy_id, project_id, started_at, ended_at, seconds, corrects_month::timestamptz as corrects_month, event_seqs
    from usage_statement_lines where workspace_id = ${workspaceId} and month = ${month.start}`;
  return { query };
}

/** Lines in the statement's order: use before corrections, then by start and copy. */
const orderedLines = (db: Db, lines: LinesQuery) => db`
  select * from (${lines.query}) l order by corrects_month is not null, corrects_month, started_at, copy_id`;

/** The first `limit` lines, in the statement's order. */
export const firstLines = (db: Db, lines: LinesQuery, limit: number) => db<StatementLineRow[]>`${orderedLines(db, lines)} limit ${limit}`;

/** Every line in the statement's order, `batch` at a time from a cursor (the CSV export). */
export const eachLineBatch = (db: Db, lines: LinesQuery, batch: number) => db<StatementLineRow[]>`${orderedLines(db, lines)}`.cursor(batch);

export interface ProjectTotals {
  projectId: string;
  name: string;
  copies: number;
  corrections: number;
  useSeconds: number;
  correctionSeconds: number;
  viewerSeconds: number;
}

/**
 * Each project's totals of the month: copies and seconds from the lines, names and viewers' time
 * frozen at close for a closed month, else now (viewer time up to `until`, the month's end or now).
 */
export async function projectTotals(
  db: Db,
  workspaceId: string,
  month: MonthBounds,
  lines: LinesQuery,
  closed: boolean,
): Promise<ProjectTotals[]> {
  const until = new Date(Math.min(Date.now(), month.end.getTime()));
  const viewers = closed
    ? db`select project_id, viewer_seconds as seconds, name from usage_statement_projects where workspace_id = ${workspaceId} and month = ${month.start}`
    : db`select v.project_id, v.seconds, null::text as name from (${viewerSecondsByProject(db, workspaceId, { from: month.start, until })}) v`;
  return db<ProjectTotals[]>`
    with l as (${lines.query}), v as (${viewers}),
    ids as (select project_id from l union select project_id from v)
    select ids.project_id, coalesce(v.name, p.name, 'A deleted project') as name,
           (select count(*) from l where l.project_id = ids.project_id and l.corrects_month is null)::int as copies,
           (select count(*) from l where l.project_id = ids.project_id and l.corrects_month is not null)::int as corrections,
           coalesce((select sum(seconds) from l where l.project_id = ids.project_id and l.corrects_month is null), 0)::float8 as use_seconds,
           coalesce((select sum(seconds) from l where l.project_id = ids.project_id and l.corrects_month is not null), 0)::float8 as correction_seconds,
           coalesce(v.seconds, 0)::float8 as viewer_seconds
    from ids left join v on v.project_id = ids.project_id
    left join projects p on p.id = ids.project_id and p.workspace_id = ${workspaceId}`;
}

/**
 * Freezes the workspace's month as it closes: its lines (use and corrections, computed now) and
 * each project's name and viewers' time. Run in the roll-up's transaction that marks the month
 * final, so a month is frozen exactly when it is final.
 */
export async function freezeStatement(tx: Db, workspaceId: string, month: MonthBounds): Promise<void> {
  const lines = await liveLines(tx, workspaceId, month);
  await tx`
    insert into usage_statement_lines (workspace_id, month, copy_id, project_id, started_at, ended_at, seconds, event_seqs, corrects_month)
    select ${workspaceId}, ${month.start}, copy_id, project_id, started_at, ended_at, seconds, event_seqs, corrects_month
    from (${lines.query}) l`;
  const viewers = viewerSecondsByProject(tx, workspaceId, { from: month.start, until: month.end });
  await tx`
    insert into usage_statement_projects (workspace_id, month, project_id, name, viewer_seconds)
    select ${workspaceId}, ${month.start}, ids.project_id, coalesce(p.name, 'A deleted project'), coalesce(v.seconds, 0)
    from (select project_id from usage_statement_lines where workspace_id = ${workspaceId} and month = ${month.start}
          union select project_id from (${viewers}) v0) ids
    left join (${viewers}) v on v.project_id = ids.project_id
    left join projects p on p.id = ids.project_id and p.workspace_id = ${workspaceId}`;
}
