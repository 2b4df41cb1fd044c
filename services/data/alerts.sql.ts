import type { AlertKind, AlertMode, ViewerEvent } from '@demo-rooms/contract';
import type { Db, Sql } from '../core/infra/db.js';
import { notFound } from '../core/rules/errors.js';
import { type EventRow, toEvent } from './product-events.sql.js';

// Alerts (issue 34; migrations/00027; docs/decisions/product-events-and-alerts.md): each
// member's in-app list of what viewers did, their choice per kind (instant mail, the day's
// digest, or none), and the mail cap (one mail per person, kind and link an hour, held in SQL).

export const alertKinds: readonly AlertKind[] = ['link.opened', 'next_step.answered', 'comment.left'];
export const isAlertKind = (k: string): k is AlertKind => (alertKinds as readonly string[]).includes(k);

/** A mail is sent for this kind and link (or project) to one person at most once in this many minutes. */
export const mailCapMinutes = 60;

export interface Recipient {
  personId: string;
  email: string;
  mode: AlertMode;
}

/** The workspace's members and how each hears of `kind` (no setting: instant). */
export function recipientsOf(sql: Db, workspaceId: string, kind: AlertKind) {
  return sql<Recipient[]>`
    select m.person_id, p.email, coalesce(s.mode, 'instant') as mode
    from memberships m join people p on p.id = m.person_id
    left join alert_settings s on s.workspace_id = m.workspace_id and s.person_id = m.person_id and s.kind = ${kind}
    where m.workspace_id = ${workspaceId}
    order by m.joined_at, m.person_id`;
}

/** The names of live projects by id (a deleted project's events alert nobody). */
export async function liveProjectNames(sql: Db, projectIds: string[]): Promise<Map<string, string>> {
  const rows = await sql<{ id: string; name: string }[]>`
    select id, name from projects where id = any(${projectIds}::uuid[]) and deleted_at is null`;
  return new Map(rows.map((r) => [r.id, r.name]));
}

/**
 * The person's in-app alert for the event; `mail` says how it will be mailed. Answers the new
 * alert's id, or null when the person already has it (the event handled again after a crash).
 */
export async function addAlert(
  sql: Db,
  a: { workspaceId: string; personId: string; eventId: string; mail: 'instant' | 'digest' | 'off' },
): Promise<string | null> {
  const [row] = await sql<{ id: string }[]>`
    insert into alerts (workspace_id, person_id, event_id, mail) values (${a.workspaceId}, ${a.personId}, ${a.eventId}, ${a.mail})
    on conflict (person_id, event_id) do nothing returning id::text as id`;
  return row?.id ?? null;
}

/**
 * Takes the mail cap for this person, kind and subject (the link, or the project of a public
 * room): true when no mail of it went out in the last hour (the row is taken or moved on now),
 * false when one did. Enforced by the row itself, so two workers at once send one mail.
 */
export async function takeMailCap(sql: Db, personId: string, subjectId: string, kind: AlertKind): Promise<boolean> {
  const taken = await sql`
    insert into alert_mail_caps (person_id, subject_id, kind, sent_at) values (${personId}, ${subjectId}, ${kind}, now())
    on conflict (person_id, subject_id, kind) do update set sent_at = now()
      where alert_mail_caps.sent_at <= now() - make_interval(mins => ${mailCapMinutes})
    returning 1`;
  return taken.count > 0;
}

/** The alert's mail went out (`mailed`) or was held back by the cap (`capped`). */
export async function settleAlertMail(sql: Db, alertId: string, outcome: 'mailed' | 'capped') {
  if (outcome === 'mailed') await sql`update alerts set mailed_at = now() where id = ${alertId}`;
  else await sql`update alerts set mail = 'capped' where id = ${alertId}`;
}

export interface AlertRow {
  id: string;
  readAt: Date | null;
  createdAt: Date;
  projectName: string;
  /** Alerts are made of alert kinds only, each a viewer's doing. */
  event: ViewerEvent;
}

interface ListedRow extends Omit<EventRow, 'id'> {
  id: string;
  readAt: Date | null;
  createdAt: Date;
  projectName: string;
  eventId: string;
}

const toAlert = (r: ListedRow): AlertRow => ({
  id: r.id,
  readAt: r.readAt,
  createdAt: r.createdAt,
  projectName: r.projectName,
  event: toEvent({ ...r, id: r.eventId }) as ViewerEvent,
});

const selectAlerts = (sql: Db) => sql`
  select a.id::text as id, a.read_at, a.created_at, p.name as project_name, e.id::text as event_id, e.workspace_id, e.project_id,
         e.link_id, e.kind, e.occurred_at, e.viewer_name, e.viewer_company, e.data
  from alerts a join product_events e on e.id = a.event_id join projects p on p.id = e.project_id and p.deleted_at is null`;

/** The person's alerts in the workspace, newest first, at most `limit`, and how many are unread in all. */
export async function listAlerts(sql: Db, workspaceId: string, personId: string, opts: { limit: number }) {
  const rows = await sql<ListedRow[]>`
    ${selectAlerts(sql)}
    where a.workspace_id = ${workspaceId} and a.person_id = ${personId}
    order by a.id desc limit ${opts.limit}`;
  const [{ unread }] = await sql<{ unread: number }[]>`
    select count(*)::int as unread from alerts a join projects p on p.id = (select project_id from product_events where id = a.event_id)
    where a.workspace_id = ${workspaceId} and a.person_id = ${personId} and a.read_at is null and p.deleted_at is null`;
  return { alerts: rows.map(toAlert), unread };
}

/**
 * Marks the person's alerts read. Every id must be one of the person's alerts in the workspace:
 * otherwise 404 and nothing is marked (a foreign id answers like a missing one).
 */
export async function markAlertsRead(sql: Sql, workspaceId: string, personId: string, ids: string[]) {
  if (ids.some((id) => !/^\d{1,18}$/.test(id))) throw notFound();
  await sql.begin(async (tx) => {
    const mine = await tx<{ id: string }[]>`
      select id::text as id from alerts where id = any(${ids}::bigint[]) and workspace_id = ${workspaceId} and person_id = ${personId}
      for update`;
    if (mine.length !== new Set(ids).size) throw notFound();
    await tx`update alerts set read_at = coalesce(read_at, now()) where id = any(${ids}::bigint[])`;
  });
}

/** The person's choice per alert kind in the workspace (instant where none was made). */
export async function alertSettingsOf(sql: Db, workspaceId: string, personId: string): Promise<Record<AlertKind, AlertMode>> {
  const rows = await sql<{ kind: AlertKind; mode: AlertMode }[]>`
    select kind, mode from alert_settings where workspace_id = ${workspaceId} and person_id = ${personId}`;
  const settings = Object.fromEntries(alertKinds.map((k) => [k, 'instant'])) as Record<AlertKind, AlertMode>;
  for (const r of rows) settings[r.kind] = r.mode;
  return settings;
}

/** Sets the person's choice for the kinds given (others unchanged), in one transaction. */
export async function putAlertSettings(sql: Sql, workspaceId: string, personId: string, settings: Partial<Record<AlertKind, AlertMode>>) {
  const entries = Object.entries(settings) as [AlertKind, AlertMode][];
  if (!entries.length) return;
  await sql`
    insert into alert_settings (workspace_id, person_id, kind, mode)
    select ${workspaceId}, ${personId}, k, m from unnest(${entries.map((e) => e[0])}::text[], ${entries.map((e) => e[1])}::text[]) as x(k, m)
    on conflict (workspace_id, person_id, kind) do update set mode = excluded.mode, updated_at = now()`;
}

/** A person with digest alerts waiting: their address and the alerts (oldest first, at most `limit`). */
export interface DigestDue {
  personId: string;
  email: string;
  alerts: AlertRow[];
}

/**
 * The people with digest alerts not yet mailed (only the `workspaceIds` given, for tests), each
 * with theirs, locked for this transaction (skip locked: two runs never mail the same alert).
 */
export async function digestsDue(tx: Db, limit: number, workspaceIds?: string[]): Promise<DigestDue[]> {
  const only = workspaceIds ? tx`and a.workspace_id = any(${workspaceIds}::uuid[])` : tx``;
  const rows = await tx<(ListedRow & { personId: string; email: string })[]>`
    select a.id::text as id, a.read_at, a.created_at, p.name as project_name, e.id::text as event_id, e.workspace_id, e.project_id,
           e.link_id, e.kind, e.occurred_at, e.viewer_name, e.viewer_company, e.data, a.person_id, pe.email
    from alerts a join product_events e on e.id = a.event_id join projects p on p.id = e.project_id and p.deleted_at is null
    join people pe on pe.id = a.person_id
    where a.mail = 'digest' and a.mailed_at is null ${only}
    order by a.person_id, a.id
    limit ${limit}
    for update of a skip locked`;
  const byPerson = new Map<string, DigestDue>();
  for (const r of rows) {
    let due = byPerson.get(r.personId);
    if (!due) byPerson.set(r.personId, (due = { personId: r.personId, email: r.email, alerts: [] }));
    due.alerts.push(toAlert(r));
  }
  return [...byPerson.values()];
}

/** The alerts went out in a digest. */
export async function markDigested(sql: Db, alertIds: string[]) {
  await sql`update alerts set mailed_at = now() where id = any(${alertIds}::bigint[])`;
}
