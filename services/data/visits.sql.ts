import type { Db, Sql } from '../core/infra/db.js';
import { planOf, publicViewerHours, type PlanName } from '../core/rules/plans.js';
import { engagedSeconds, recordEvidence } from './link-evidence.sql.js';
import { endVisitsWithEvents } from './product-events.sql.js';
import { markLinkOpened } from './link-opened.sql.js';
import { holdRoomAdmission, viewersPresent, type RoomSessionRow } from './room-sessions.sql.js';

// Visits (spec 2.5) as the room writes them. A visit starts on entry, is moved on by the shell's
// beacon, and ends when the viewer leaves or goes quiet. Previews record none.

/** A visit with no beacon for this long has ended, at its last beacon. */
export const quietSeconds = 120;

/** Starts the session's visit, and marks its link opened when the viewer has said who they are (link-opened.sql.ts). */
export async function startVisit(tx: Db, session: RoomSessionRow, viewerName: string | null): Promise<string | null> {
  if (session.preview) return null;
  const [visit] = await tx<{ id: string }[]>`
    insert into visits (workspace_id, project_id, link_id, viewer_name)
    values (${session.workspaceId}, ${session.projectId}, ${session.linkId}, ${session.viewerName ?? viewerName})
    returning id`;
  await tx`update room_sessions set visit_id = ${visit.id}, last_seen_at = now() where id = ${session.id}`;
  await markLinkOpened(tx, session, visit.id);
  return visit.id;
}

/**
 * The shell ran for the session (a real open, not a link-preview fetch): its visit starts now
 * unless one is still open (a reload), and its link is marked opened. Answers the open visit's
 * id (null for a preview) and whether it started now. A session's first visit starts here, never
 * at the address's GET, and takes a seat: `full` when the room already holds `seats` viewers
 * (nothing is written). A session that was in before (it had a visit) is always let back.
 */
export async function arriveInVisit(
  sql: Sql,
  session: RoomSessionRow,
  seats: number,
): Promise<{ visitId: string | null; started: boolean; full: boolean }> {
  if (session.preview) return { visitId: null, started: false, full: false };
  return sql.begin(async (tx) => {
    // The session held, so two arrivals at once (two tabs) start one visit.
    const [held] = await tx<RoomSessionRow[]>`select * from room_sessions where id = ${session.id} for update`;
    const [open] = await tx<{ id: string }[]>`
      select id from visits
      where id = ${held.visitId} and ended_at is null and last_seen_at > now() - make_interval(secs => ${quietSeconds})`;
    if (open) return { visitId: open.id, started: false, full: false };
    if (!held.visitId) {
      await holdRoomAdmission(tx, held.projectId);
      await endQuietVisits(tx, held.projectId);
      if ((await viewersPresent(tx, held.projectId)) >= seats) return { visitId: null, started: false, full: true };
    }
    return { visitId: await startVisit(tx, held, null), started: true, full: false };
  });
}

/** Ends visits whose shell went quiet, at their last beacon. Idempotent; run before counting. */
export async function endQuietVisits(sql: Db, projectId: string) {
  await endVisitsWithEvents(
    sql,
    sql`ended_at = last_seen_at`,
    sql`project_id = ${projectId} and ended_at is null and last_seen_at < now() - make_interval(secs => ${quietSeconds})`,
  );
}

/**
 * Ends every quiet visit on the platform, at its last beacon (the hourly sweep), so a visit whose
 * viewer vanished without a pagehide beacon (a killed browser, a lost network) is ended in the
 * table too, not only in what listVisits shows. Returns how many it ended.
 */
export function endQuietVisitsEverywhere(sql: Db): Promise<number> {
  return endVisitsWithEvents(
    sql,
    sql`ended_at = last_seen_at`,
    sql`ended_at is null and last_seen_at < now() - make_interval(secs => ${quietSeconds})`,
  );
}

/** A beat this soon after its visit ended is the leave's straggler, not a viewer back. */
const lateBeatSeconds = 30;

/**
 * One beacon: the session is seen, and each app or page gets the seconds the shell reports,
 * never more in all than the time since the last beacon (plus slack), so a tampered shell
 * cannot inflate a visit. A viewer back after going quiet gets a new visit; so does one back in
 * view (`shown`) after their visit ended. Any other beat that finds its visit ended moments ago
 * (the leave) carries time seen before the viewer left (a flush or the hidden beacon racing
 * pagehide): its seconds go to that visit, which stays ended, and no new visit opens.
 */
export async function recordBeat(
  sql: Sql,
  session: RoomSessionRow,
  time: Record<string, number>,
  shown = false,
): Promise<{ visitId: string | null; credited: Record<string, number>; late?: true }> {
  return sql.begin(async (tx) => {
    const [visit] = await tx<{ id: string; time: string; elapsed: number; endedAt: Date | null; justLeft: boolean }[]>`
      select id, time::text as time, extract(epoch from now() - last_seen_at)::float8 as elapsed, ended_at,
             coalesce(ended_at > now() - make_interval(secs => ${lateBeatSeconds}), false) as just_left
      from visits where id = ${session.visitId} for update`;
    const open = visit && !visit.endedAt && visit.elapsed < quietSeconds;
    if (visit?.justLeft && !shown) return creditLeftVisit(tx, session, visit, time);
    if (visit && !visit.endedAt && !open)
      await endVisitsWithEvents(tx, tx`ended_at = last_seen_at`, tx`id = ${visit.id} and ended_at is null`);
    // A new visit starts only with seconds seen, or with the viewer back in view: a stray beacon
    // after the viewer left would otherwise open a visit that ends where it started. A shown beat
    // may carry none (the tab's first flush within a second of coming back), and the shell says
    // `shown` once: its next beats would read as the leave's stragglers.
    const seen = Object.values(time).some((s) => Math.floor(s) > 0);
    if (!open && !seen && !shown) return { visitId: null, credited: {} };
    // A session's first visit starts only on arrival, which takes its seat (arriveInVisit).
    if (!session.visitId) return { visitId: null, credited: {} };
    const visitId = open ? visit.id : await startVisit(tx, session, null);
    if (!visitId) return { visitId: null, credited: {} };
    const { spent, credited, total } = creditBeat(open ? visit : null, time);
    await writeVisitTime(tx, visitId, spent);
    await tx`update room_sessions set last_seen_at = now() where id = ${session.id}`;
    // Sustained time in one visit is engagement (link-evidence.sql.ts).
    if (total >= engagedSeconds) await recordEvidence(tx, session.linkId, 'engaged');
    return { visitId, credited };
  });
}

/**
 * A late beat's seconds, added to the visit the viewer already left, which keeps its end. Within
 * the usual allowance, and its last sight moves as any beat's does: each straggler is allowed the
 * time since the one before it, not since the leave (else a tampered shell's beats in the window
 * would each be allowed the whole of it).
 */
async function creditLeftVisit(
  tx: Db,
  session: RoomSessionRow,
  visit: { id: string; time: string; elapsed: number },
  time: Record<string, number>,
) {
  const { spent, credited, total } = creditBeat(visit, time);
  if (Object.keys(credited).length) {
    await writeVisitTime(tx, visit.id, spent);
    // Seconds seen before the leave count toward engagement as an open visit's do.
    if (total >= engagedSeconds) await recordEvidence(tx, session.linkId, 'engaged');
  }
  return { visitId: visit.id, credited, late: true as const };
}

/**
 * A visit's time after a beat, and its last sight: the clock, not now() (a visit started in this
 * transaction began at clock_timestamp(), after the transaction's now(), and last_seen_at may not
 * come before started_at). Stored as text cast to jsonb: the client's camel-case transform must
 * not touch app ids.
 */
async function writeVisitTime(tx: Db, visitId: string, spent: Record<string, number>) {
  await tx`update visits set last_seen_at = clock_timestamp(), time = ${JSON.stringify(spent)}::text::jsonb where id = ${visitId}`;
}

/**
 * What a beat adds to an open visit (null: a visit starting now): each app or page gets the
 * seconds the shell reports, never more in all than the time since the visit's last beacon plus
 * 5 s of slack. Answers the visit's new time by key, what was credited, and the visit's total.
 */
export function creditBeat(visit: { time: string; elapsed: number } | null, time: Record<string, number>) {
  const credited: Record<string, number> = {};
  const spent = visit ? (JSON.parse(visit.time) as Record<string, number>) : {};
  let allowance = visit ? Math.ceil(visit.elapsed) + 5 : 0;
  for (const [key, seconds] of Object.entries(time)) {
    const add = Math.min(Math.max(0, Math.floor(seconds)), allowance);
    allowance -= add;
    if (add > 0) {
      spent[key] = (spent[key] ?? 0) + add;
      credited[key] = add;
    }
  }
  const total = Object.values(spent).reduce((a, b) => a + b, 0);
  return { spent, credited, total };
}

/** The viewer left (the shell's pagehide beacon): the visit ends now; the session may come back. */
export async function endVisit(sql: Sql, session: RoomSessionRow) {
  if (!session.visitId) return;
  await endVisitsWithEvents(
    sql,
    sql`ended_at = greatest(now(), started_at), last_seen_at = now()`,
    sql`id = ${session.visitId} and ended_at is null`,
  );
  await sql`update room_sessions set last_seen_at = now() - make_interval(secs => ${quietSeconds}) where id = ${session.id}`;
}

/** The first moment of `at`'s UTC month. */
export const utcMonthStart = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));

/**
 * Which visits an allowance of hours counts: those through private links, those in public rooms
 * (no link and no preview: links are never deleted but with their project, and so their visits),
 * or all.
 */
export type HoursOf = 'links' | 'public' | 'all';

/**
 * Viewer-hours the workspace used this UTC month, up to `at`: the part of each visit between the
 * month's start and `at`, summed over every project (deleted ones too: the hours were used).
 * A visit counts up to its end, or while open up to when it was last seen. Previews count nothing.
 * Hours, fractional.
 */
export async function viewerHoursThisMonth(sql: Sql, workspaceId: string, at = new Date(), of: HoursOf = 'all'): Promise<number> {
  const [row] = await sql<{ seconds: number }[]>`
    select coalesce(sum(seconds), 0)::float8 as seconds from (${viewerSecondsByProject(sql, workspaceId, { from: utcMonthStart(at), until: at }, of)}) v`;
  return row.seconds / 3600;
}

/**
 * The viewer time of viewerHoursThisMonth between `from` and `until`, one row per project
 * (project_id, seconds): the one computation behind the allowance and the statements (issue 46).
 */
export function viewerSecondsByProject(sql: Db, workspaceId: string, { from, until }: { from: Date; until: Date }, of: HoursOf = 'all') {
  const which = of === 'links' ? sql`and link_id is not null` : of === 'public' ? sql`and link_id is null` : sql``;
  return sql`
    select project_id, sum(extract(epoch from
             least(coalesce(ended_at, last_seen_at), ${until}::timestamptz) - greatest(started_at, ${from}::timestamptz)))::float8 as seconds
    from visits
    where workspace_id = ${workspaceId} and not preview ${which}
      and coalesce(ended_at, last_seen_at) > ${from}::timestamptz and started_at < ${until}::timestamptz
    group by project_id`;
}

/**
 * Whether the month's viewer-hours for a way in are used (then no new links, and the room takes
 * no new visits that way). Private links have the plan's month; public rooms have their own,
 * smaller allowance beside it (publicViewerHours), so strangers at a listing cannot shut the
 * private links.
 */
export async function viewerHoursUsedUp(
  sql: Sql,
  workspaceId: string,
  plan: PlanName,
  door: 'links' | 'public',
  at = new Date(),
): Promise<boolean> {
  const allowance = door === 'public' ? publicViewerHours(planOf(plan)) : planOf(plan).viewerHours;
  return (await viewerHoursThisMonth(sql, workspaceId, at, door)) >= allowance;
}
