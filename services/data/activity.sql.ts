import type { Visit } from '@demo-rooms/contract';
import type { Sql } from '../core/infra/db.js';
import { quietSeconds } from './visits.sql.js';

/**
 * The project's visits, newest first (spec 2.5). A visit whose shell went quiet shows as ended at
 * its last beacon even before anything closed it. Previews record none.
 */
export async function visitsOf(sql: Sql, projectId: string): Promise<Omit<Visit, 'names'>[]> {
  const rows = await sql<
    { id: string; linkId: string | null; viewerName: string | null; startedAt: Date; endedAt: Date | null; time: string }[]
  >`
    select id, link_id, viewer_name, started_at,
           coalesce(ended_at, case when last_seen_at < now() - make_interval(secs => ${quietSeconds}) then last_seen_at end) as ended_at,
           time::text as time
    from visits where project_id = ${projectId} and not preview
    order by started_at desc, id desc`;
  return rows.map((v) => ({
    id: v.id,
    linkId: v.linkId,
    viewerName: v.viewerName,
    startedAt: v.startedAt.toISOString(),
    endedAt: v.endedAt?.toISOString() ?? null,
    time: JSON.parse(v.time) as Record<string, number>,
  }));
}

/** Viewers a full room turned away this UTC month, once per browser per hour. */
export async function bouncesThisMonth(sql: Sql, projectId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from room_bounces
    where project_id = ${projectId} and hour >= date_trunc('month', now() at time zone 'utc') at time zone 'utc'`;
  return row.n;
}
