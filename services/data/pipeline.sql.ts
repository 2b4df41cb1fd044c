import type { LinkStage } from '@demo-rooms/contract';
import type { Db } from '../core/infra/db.js';
import type { ClaimRow } from './link-claims.sql.js';
import type { LinkRow } from './links.sql.js';
import { stageEventsFromMoved } from './product-events.sql.js';

// The pipeline's reads and the builder's own view of each deal (migrations/00011; issue 15): a
// board is every link of every live project with what the evidence says of it, computed in one
// query for the whole board (aggregates by link), never one query a card.

export type BoardRow = LinkRow & {
  projectName: string;
  /** The follow-up's day as `YYYY-MM-DD`. */
  followUpDay: string | null;
  notes: number;
  lastSeenAt: Date | null;
  activeSeconds: number;
  visits: number;
  appsSeen: string[];
  storySteps: number;
  answers: string[];
  comments: number;
};

/** The board's rows: the workspace's links (all, one project's, or one link), newest first. */
export function boardRows(sql: Db, workspaceId: string, only: { projectId?: string; linkId?: string } = {}) {
  const projectId = only.projectId ?? null;
  const linkId = only.linkId ?? null;
  return sql<BoardRow[]>`
    select l.*, p.name as project_name, to_char(l.follow_up_on, 'YYYY-MM-DD') as follow_up_day,
      (select count(*)::int from link_notes n where n.link_id = l.id) as notes,
      v.last_seen_at, coalesce(v.active_seconds, 0)::int as active_seconds, coalesce(v.visits, 0)::int as visits,
      coalesce(v.apps_seen, '{}') as apps_seen,
      (select count(distinct e.subject)::int from room_events e where e.link_id = l.id and e.kind = 'step') as story_steps,
      coalesce((select array_agg(distinct r.step) from responses r where r.link_id = l.id), '{}') as answers,
      (select count(*)::int from comments c where c.link_id = l.id) as comments
    from links l
    join projects p on p.id = l.project_id and p.deleted_at is null
    left join lateral (
      select max(coalesce(vi.ended_at, vi.last_seen_at)) as last_seen_at, count(distinct vi.id) as visits,
             sum(t.seconds) as active_seconds, array_agg(distinct t.key) filter (where t.key is not null) as apps_seen
      from visits vi left join lateral (select key, value::int as seconds from jsonb_each_text(vi.time)) t on true
      where vi.link_id = l.id and not vi.preview
    ) v on true
    where l.workspace_id = ${workspaceId} and (${projectId}::uuid is null or l.project_id = ${projectId})
      and (${linkId}::uuid is null or l.id = ${linkId})
    order by l.created_at desc, l.id desc`;
}

/** The claims of these links, by link. */
export async function claimsByLink(sql: Db, linkIds: string[]): Promise<Map<string, ClaimRow[]>> {
  const byLink = new Map<string, ClaimRow[]>();
  if (!linkIds.length) return byLink;
  const rows = await sql<ClaimRow[]>`select * from link_claims where link_id = any(${linkIds}::uuid[]) order by first_seen_at, session_id`;
  // Pushed into each link's own array: copying it per claim was O(k²) in a link's claims.
  for (const row of rows) {
    const claims = byLink.get(row.linkId);
    if (claims) claims.push(row);
    else byLink.set(row.linkId, [row]);
  }
  return byLink;
}

/** The builder's stage; null hands the link back to the evidence. */
export async function placeStage(sql: Db, linkId: string, stage: LinkStage | null) {
  // One statement: the stage the builder sees (placed, else the evidence's) before and after, and
  // a link.stage_changed product event when it moved.
  await sql`
    with old as (
      select id, coalesce(placed_stage, stage) as shown from links where id = ${linkId} for update
    ), placed as (
      update links l set placed_stage = ${stage}, placed_at = case when ${stage}::text is null then null else now() end
      from old where l.id = old.id
      returning l.id, l.workspace_id, l.project_id, l.viewer_name, old.shown as from_stage, coalesce(l.placed_stage, l.stage) as to_stage
    ), moved as (select * from placed), told as (${stageEventsFromMoved(sql)})
    select count(*) from placed`;
}

export async function setOutcome(sql: Db, linkId: string, outcome: 'won' | 'lost' | 'later' | null) {
  await sql`update links set outcome = ${outcome} where id = ${linkId}`;
}

export async function setFollowUp(sql: Db, linkId: string, on: string | null, note: string | null) {
  await sql`update links set follow_up_on = ${on}::date, follow_up_note = ${note} where id = ${linkId}`;
}
