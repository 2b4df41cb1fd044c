import type { JSONValue } from 'postgres';
import type { Db, Sql } from '../core/infra/db.js';
import { notFound } from '../core/rules/errors.js';
import { isUuid } from '../core/infra/ids.js';
import { noticeWorkspace } from './notices.sql.js';

// Webhook endpoints, their deliveries and every attempt (issue 34; migrations/00028_webhooks.sql).
// Every read and write names the workspace.

export interface EndpointRow {
  id: string;
  workspaceId: string;
  url: string;
  description: string;
  kinds: string[];
  enabled: boolean;
  secretSealed: Buffer;
  disabledReason: string | null;
  failedInARow: number;
  failingSince: Date | null;
  /** Who added it; null for endpoints from before this was kept. */
  createdBy: string | null;
  /** Its maker is no longer a member (removed, left, or deleted): for the owners to review (security-4 L5). */
  creatorLeft: boolean;
  createdAt: Date;
}

export interface DeliveryRow {
  id: string;
  workspaceId: string;
  endpointId: string;
  eventId: string;
  kind: string;
  payload: unknown;
  series: number;
  status: 'pending' | 'succeeded' | 'failed';
  createdAt: Date;
}

export interface AttemptRow {
  series: number;
  attempt: number;
  at: Date;
  durationMs: number;
  statusCode: number | null;
  ok: boolean;
  error: string | null;
  bodyExcerpt: string | null;
}

/** Every endpoint read answers whether its maker is still a member of the workspace. */
const withCreatorLeft = (sql: Db) => sql`*, (created_by is not null and not exists (
  select 1 from memberships m where m.workspace_id = webhook_endpoints.workspace_id and m.person_id = webhook_endpoints.created_by)) as creator_left`;

/** Most series one delivery may have: re-sends are for a fixed receiver, not a loop. */
export const MAX_SERIES = 20;

/** Serialises endpoint creations per workspace, so racing requests cannot both pass the plan's count. */
export async function lockEndpointsOf(tx: Db, workspaceId: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(hashtext('webhooks:' || ${workspaceId}))`;
}

export async function countEndpoints(tx: Db, workspaceId: string): Promise<number> {
  const [{ n }] = await tx<{ n: number }[]>`select count(*)::int as n from webhook_endpoints where workspace_id = ${workspaceId}`;
  return n;
}

export async function insertEndpoint(
  tx: Db,
  e: Pick<EndpointRow, 'id' | 'workspaceId' | 'url' | 'description' | 'kinds' | 'enabled' | 'secretSealed'> & { createdBy: string },
): Promise<EndpointRow> {
  const [row] = await tx<EndpointRow[]>`
    insert into webhook_endpoints (id, workspace_id, url, description, kinds, enabled, secret_sealed, created_by)
    values (${e.id}, ${e.workspaceId}, ${e.url}, ${e.description}, ${e.kinds}::text[], ${e.enabled}, ${e.secretSealed}, ${e.createdBy})
    returning ${withCreatorLeft(tx)}`;
  return row;
}

export function endpointsOf(sql: Db, workspaceId: string) {
  return sql<
    EndpointRow[]
  >`select ${withCreatorLeft(sql)} from webhook_endpoints where workspace_id = ${workspaceId} order by created_at, id`;
}

/** The workspace's endpoint, or 404 (another workspace's too). */
export async function endpointIn(sql: Db, workspaceId: string, endpointId: string): Promise<EndpointRow> {
  if (!isUuid(endpointId)) throw notFound();
  const [row] = await sql<EndpointRow[]>`
    select ${withCreatorLeft(sql)} from webhook_endpoints where id = ${endpointId} and workspace_id = ${workspaceId}`;
  if (!row) throw notFound();
  return row;
}

/** Changes what is given; enabling clears the platform's reason for disabling and its failure count. */
export async function updateEndpoint(
  sql: Db,
  workspaceId: string,
  endpointId: string,
  patch: { kinds?: string[]; description?: string; enabled?: boolean },
): Promise<EndpointRow> {
  const current = await endpointIn(sql, workspaceId, endpointId);
  const enabling = patch.enabled === true && !current.enabled;
  const [row] = await sql<EndpointRow[]>`
    update webhook_endpoints set
      kinds = ${patch.kinds ?? current.kinds}::text[],
      description = ${patch.description ?? current.description},
      enabled = ${patch.enabled ?? current.enabled},
      disabled_reason = ${enabling ? null : current.disabledReason},
      failed_in_a_row = ${enabling ? 0 : current.failedInARow},
      failing_since = ${enabling ? null : current.failingSince},
      updated_at = now()
    where id = ${endpointId} and workspace_id = ${workspaceId}
    returning ${withCreatorLeft(sql)}`;
  if (!row) throw notFound();
  return row;
}

export async function deleteEndpoint(sql: Db, workspaceId: string, endpointId: string): Promise<void> {
  if (!isUuid(endpointId)) throw notFound();
  const gone = await sql`delete from webhook_endpoints where id = ${endpointId} and workspace_id = ${workspaceId} returning id`;
  if (gone.length === 0) throw notFound();
}

export async function setEndpointSecret(sql: Db, workspaceId: string, endpointId: string, secretSealed: Buffer): Promise<EndpointRow> {
  const [row] = await sql<EndpointRow[]>`
    update webhook_endpoints set secret_sealed = ${secretSealed}, updated_at = now()
    where id = ${endpointId} and workspace_id = ${workspaceId} returning ${withCreatorLeft(sql)}`;
  if (!row) throw notFound();
  return row;
}

/** The workspace's enabled endpoints that hear `kind`. */
export function endpointsHearing(sql: Db, workspaceId: string, kind: string) {
  return sql<{ id: string }[]>`
    select id from webhook_endpoints where workspace_id = ${workspaceId} and enabled and ${kind} = any(kinds)`;
}

/**
 * One delivery per (endpoint, event), made at most once however often the same event comes;
 * answers every such delivery still pending (new, or made by an earlier run that stopped before
 * its job was queued), so the caller can queue each (the job id keeps that idempotent too).
 */
export async function ensureDeliveries(
  sql: Db,
  d: { workspaceId: string; endpointIds: string[]; eventId: string; kind: string; payload: unknown },
): Promise<DeliveryRow[]> {
  if (d.endpointIds.length === 0) return [];
  await sql`
    insert into webhook_deliveries (workspace_id, endpoint_id, event_id, kind, payload)
    select ${d.workspaceId}, e, ${d.eventId}, ${d.kind}, ${sql.json(d.payload as JSONValue)}
    from unnest(${d.endpointIds}::uuid[]) as e
    on conflict (endpoint_id, event_id) do nothing`;
  return sql<DeliveryRow[]>`
    select * from webhook_deliveries
    where workspace_id = ${d.workspaceId} and event_id = ${d.eventId} and endpoint_id = any(${d.endpointIds}::uuid[]) and status = 'pending'`;
}

/** A delivery with its endpoint, as the delivery job needs them; null once either is gone. */
export async function deliveryWithEndpoint(sql: Db, workspaceId: string, deliveryId: string) {
  const [row] = await sql<(DeliveryRow & { url: string; enabled: boolean; secretSealed: Buffer })[]>`
    select d.*, e.url, e.enabled, e.secret_sealed from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
    where d.id = ${deliveryId} and d.workspace_id = ${workspaceId} and e.workspace_id = ${workspaceId}`;
  return row ?? null;
}

export async function recordAttempt(sql: Db, a: { workspaceId: string; deliveryId: string } & Omit<AttemptRow, 'at'>): Promise<void> {
  await sql`
    insert into webhook_attempts (workspace_id, delivery_id, series, attempt, duration_ms, status_code, ok, error, body_excerpt)
    values (${a.workspaceId}, ${a.deliveryId}, ${a.series}, ${a.attempt}, ${a.durationMs}, ${a.statusCode}, ${a.ok}, ${a.error}, ${a.bodyExcerpt})
    on conflict (delivery_id, series, attempt) do nothing`;
}

/** Ends a series: the delivery's outcome, and the endpoint's run of failures counted or reset. */
export async function finishSeries(
  sql: Sql,
  f: { workspaceId: string; deliveryId: string; endpointId: string; series: number; ok: boolean; disableAfter: number },
): Promise<{ disabled: boolean }> {
  return sql.begin(async (tx) => {
    const moved = await tx`
      update webhook_deliveries set status = ${f.ok ? 'succeeded' : 'failed'}, updated_at = now()
      where id = ${f.deliveryId} and workspace_id = ${f.workspaceId} and series = ${f.series} and status = 'pending' returning id`;
    // A series ended twice (a job retaken after its worker died) counts once.
    if (moved.length === 0) return { disabled: false };
    if (f.ok) {
      await tx`
        update webhook_endpoints set failed_in_a_row = 0, failing_since = null
        where id = ${f.endpointId} and workspace_id = ${f.workspaceId}`;
      return { disabled: false };
    }
    // The run of failures began when the first failed delivery of it was made.
    const [e] = await tx<{ id: string; url: string; enabled: boolean; failedInARow: number; failingSince: Date }[]>`
      update webhook_endpoints set failed_in_a_row = failed_in_a_row + 1,
        failing_since = coalesce(failing_since, (select created_at from webhook_deliveries where id = ${f.deliveryId}))
      where id = ${f.endpointId} and workspace_id = ${f.workspaceId}
      returning id, url, enabled, failed_in_a_row, failing_since`;
    const failingADay = e && e.failingSince.getTime() < Date.now() - 24 * 3600 * 1000;
    if (!e?.enabled || (e.failedInARow < f.disableAfter && !failingADay)) return { disabled: false };
    const reason = `Every attempt of ${f.disableAfter} deliveries in a row failed, or it has failed for over 24 hours.`;
    await tx`
      update webhook_endpoints set enabled = false, disabled_reason = ${reason}, updated_at = now()
      where id = ${e.id} and workspace_id = ${f.workspaceId}`;
    await noticeWorkspace(tx, {
      workspaceId: f.workspaceId,
      projectId: null,
      kind: 'webhook.disabled',
      title: 'A webhook endpoint was switched off',
      body: `${e.url.slice(0, 200)} kept failing: ${reason} Fix it, then switch it back on in Webhooks.`,
      href: '/webhooks',
    });
    return { disabled: true };
  });
}

/** Starts a new series of attempts for a finished delivery; null while one runs or past MAX_SERIES. */
export async function startSeries(sql: Db, workspaceId: string, deliveryId: string): Promise<DeliveryRow | null> {
  const [row] = await sql<DeliveryRow[]>`
    update webhook_deliveries set series = series + 1, status = 'pending', updated_at = now()
    where id = ${deliveryId} and workspace_id = ${workspaceId} and status <> 'pending' and series < ${MAX_SERIES}
    returning *`;
  return row ?? null;
}

/** The workspace's delivery, or 404. */
export async function deliveryIn(sql: Db, workspaceId: string, deliveryId: string): Promise<DeliveryRow> {
  if (!isUuid(deliveryId)) throw notFound();
  const [row] = await sql<DeliveryRow[]>`select * from webhook_deliveries where id = ${deliveryId} and workspace_id = ${workspaceId}`;
  if (!row) throw notFound();
  return row;
}

/** An endpoint's last `limit` deliveries, newest first, each with its attempts newest first. */
export function deliveriesOf(sql: Db, workspaceId: string, endpointId: string, ids: string[] | null = null, limit = 50) {
  return sql<(DeliveryRow & { attempts: AttemptRow[] })[]>`
    select d.*, coalesce((
      select json_agg(json_build_object(
        'series', a.series, 'attempt', a.attempt, 'at', a.at, 'durationMs', a.duration_ms, 'statusCode', a.status_code,
        'ok', a.ok, 'error', a.error, 'bodyExcerpt', a.body_excerpt) order by a.series desc, a.attempt desc)
      from webhook_attempts a where a.delivery_id = d.id and a.workspace_id = ${workspaceId}), '[]') as attempts
    from webhook_deliveries d
    where d.workspace_id = ${workspaceId} and d.endpoint_id = ${endpointId} ${ids ? sql`and d.id = any(${ids}::uuid[])` : sql``}
    order by d.created_at desc, d.id limit ${limit}`;
}

/** Days a finished delivery stays in the log (with its attempts). */
export const DELIVERY_LOG_DAYS = 30;

/** The sweep's share: finished deliveries older than DELIVERY_LOG_DAYS go, 10,000 at a time; answers how many. */
export async function deleteOldDeliveries(sql: Db): Promise<number> {
  const gone = await sql`
    delete from webhook_deliveries where id in (
      select id from webhook_deliveries
      where status <> 'pending' and updated_at < now() - make_interval(days => ${DELIVERY_LOG_DAYS})
      limit 10000)
    returning id`;
  return gone.length;
}
