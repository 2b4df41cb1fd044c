import type { LinkStage, ProductEvent, ProductEventKind } from '@demo-rooms/contract';
import type { PendingQuery, Row } from 'postgres';
import type { Db, Tx } from '../core/infra/db.js';

// The product-events outbox (migrations/00027; docs/decisions/product-events-and-alerts.md).
// Each event is written in the SAME transaction as the fact it tells of (a visit started, an
// answer, a comment, a stage moved), so an event exists exactly when its fact does. Consumers
// (workers/events-fanout) then handle each event once each, recorded in product_event_handled.

type Payload<K extends ProductEventKind> = Extract<ProductEvent, { kind: K }>['data'];

export interface NewProductEvent<K extends ProductEventKind = ProductEventKind> {
  workspaceId: string;
  projectId: string;
  linkId: string | null;
  kind: K;
  viewerName: string | null;
  viewerCompany?: string | null;
  data: Payload<K>;
}

/** Viewer names are capped like the table (200 characters); the outbox never refuses its fact. */
const capped = (s: string | null | undefined) => (s == null ? null : s.slice(0, 200));

/** Writes one event; call it inside the fact's own transaction. */
export async function emitProductEvent<K extends ProductEventKind>(tx: Db, e: NewProductEvent<K>) {
  await tx`
    insert into product_events (workspace_id, project_id, link_id, kind, viewer_name, viewer_company, data)
    values (${e.workspaceId}, ${e.projectId}, ${e.linkId}, ${e.kind}, ${capped(e.viewerName)}, ${capped(e.viewerCompany)},
            ${JSON.stringify(e.data)}::text::jsonb)`;
}

/**
 * usage.month_closed (issue 46): the workspace's own event, of no project, link or viewer;
 * written in the usage roll-up's transaction that closes the month, so it exists exactly when the
 * month is final.
 */
export async function emitMonthClosed(tx: Db, workspaceId: string, data: Payload<'usage.month_closed'>) {
  await tx`
    insert into product_events (workspace_id, project_id, link_id, kind, data)
    values (${workspaceId}, null, null, 'usage.month_closed', ${JSON.stringify(data)}::text::jsonb)`;
}

/** A link's stage move, for emitStageMoves: the stage before and after one update. */
export interface StageMove {
  id: string;
  workspaceId: string;
  projectId: string;
  viewerName: string | null;
  from: string | null;
  to: string;
}

/** link.stage_changed for each move that really moved (from ≠ to). */
export async function emitStageMoves(tx: Db, moved: readonly StageMove[]) {
  for (const m of moved) {
    if (m.from === m.to) continue;
    await emitProductEvent(tx, {
      workspaceId: m.workspaceId,
      projectId: m.projectId,
      linkId: m.id,
      kind: 'link.stage_changed',
      viewerName: m.viewerName,
      data: { from: m.from as LinkStage | null, to: m.to as LinkStage },
    });
  }
}

/**
 * The SQL of a CTE that writes link.stage_changed events for the rows of the CTE `moved`
 * (columns id, workspace_id, project_id, viewer_name, from_stage, to_stage), for statements that
 * move many links at once (beat-batch.sql.ts). Only real moves are told.
 */
export const stageEventsFromMoved = (sql: Db) => sql`
  insert into product_events (workspace_id, project_id, link_id, kind, viewer_name, data)
  select workspace_id, project_id, id, 'link.stage_changed', left(viewer_name, 200), jsonb_build_object('from', from_stage, 'to', to_stage)
  from moved where from_stage is distinct from to_stage
  returning 1`;

/** An outbox row as read (the listing of alerts reads the same columns beside its own). */
export interface EventRow {
  id: string;
  workspaceId: string;
  projectId: string;
  linkId: string | null;
  kind: ProductEventKind;
  occurredAt: Date;
  viewerName: string | null;
  viewerCompany: string | null;
  data: unknown;
}

export const toEvent = (r: EventRow): ProductEvent =>
  ({
    id: String(r.id),
    workspaceId: r.workspaceId,
    projectId: r.projectId,
    linkId: r.linkId,
    kind: r.kind,
    occurredAt: r.occurredAt.toISOString(),
    viewer: { name: r.viewerName, company: r.viewerCompany },
    data: r.data,
  }) as ProductEvent;

/** How far back the fan-out looks for unhandled events (older ones are history, not news). */
export const fanoutWindowDays = 7;

/**
 * The viewer's company as an event tells it: what the viewer typed when the event was written,
 * else what their link says now (issue 34's personalised copies; the stage moves and visit ends
 * written in bulk carry none of their own).
 */
const viewerCompany = (q: Db) => q`coalesce(e.viewer_company, left(l.viewer_company, 200))`;

/**
 * Up to `limit` events `consumer` has not handled, oldest first, locked (skip locked) for this
 * transaction so two fan-out runs at once never take the same event for the same consumer.
 * `workspaceIds` narrows to those workspaces (tests drain only their own).
 */
export async function claimUnhandled(tx: Tx, consumer: string, limit: number, workspaceIds?: string[]): Promise<ProductEvent[]> {
  const only = workspaceIds ? tx`and e.workspace_id = any(${workspaceIds}::uuid[])` : tx``;
  const rows = await tx<EventRow[]>`
    select e.id::text as id, e.workspace_id, e.project_id, e.link_id, e.kind, e.occurred_at, e.viewer_name,
           ${viewerCompany(tx)} as viewer_company, e.data
    from product_events e left join links l on l.id = e.link_id
    where e.occurred_at > now() - make_interval(days => ${fanoutWindowDays}) ${only}
      and not exists (select 1 from product_event_handled h where h.consumer = ${consumer} and h.event_id = e.id)
    order by e.id
    limit ${limit}
    for update of e skip locked`;
  return rows.map(toEvent);
}

/** Records the events handled by `consumer` (in the claiming transaction). */
export async function markHandled(tx: Db, consumer: string, eventIds: string[]) {
  if (!eventIds.length) return;
  await tx`
    insert into product_event_handled (consumer, event_id)
    select ${consumer}, unnest(${eventIds}::bigint[])
    on conflict do nothing`;
}

/** A workspace's events, newest first (tests and the API's views). */
export async function eventsOf(sql: Db, workspaceId: string, limit = 100): Promise<ProductEvent[]> {
  const rows = await sql<EventRow[]>`
    select e.id::text as id, e.workspace_id, e.project_id, e.link_id, e.kind, e.occurred_at, e.viewer_name,
           ${viewerCompany(sql)} as viewer_company, e.data
    from product_events e left join links l on l.id = e.link_id
    where e.workspace_id = ${workspaceId} order by e.id desc limit ${limit}`;
  return rows.map(toEvent);
}

/**
 * Ends visits and writes a visit.ended event for each (never a preview's) in ONE statement, so the
 * event exists exactly when the end does, whether or not the caller holds a transaction. `set`
 * and `where` are fragments of `update visits set … where …`. Seconds in all and per app or page
 * (visits.time, by id). Answers how many visits ended.
 */
export async function endVisitsWithEvents(sql: Db, set: PendingQuery<Row[]>, where: PendingQuery<Row[]>): Promise<number> {
  const [row] = await sql<{ ended: number }[]>`
    with ended as (
      update visits set ${set} where ${where}
      returning id, workspace_id, project_id, link_id, viewer_name, preview, time
    ), told as (
      insert into product_events (workspace_id, project_id, link_id, kind, viewer_name, data)
      select e.workspace_id, e.project_id, e.link_id, 'visit.ended', left(e.viewer_name, 200),
             jsonb_build_object('visitId', e.id, 'seconds', coalesce(t.seconds, 0), 'apps', coalesce(t.apps, '[]'::jsonb))
      from ended e left join lateral (
        select sum(greatest(value::numeric, 0)::int)::int as seconds,
               jsonb_agg(jsonb_build_object('app', key, 'seconds', greatest(value::numeric, 0)::int) order by key) as apps
        from jsonb_each_text(e.time)
      ) t on true
      where not e.preview
      returning 1
    )
    select count(*)::int as ended from ended`;
  return row.ended;
}
