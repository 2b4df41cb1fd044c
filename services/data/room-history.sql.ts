import type { HistoryEntry } from '@demo-rooms/contract';
import type { Db, Sql } from '../core/infra/db.js';
import { displayNameOf } from './people.sql.js';

// The project history (spec 2.7, 6): append-only (a trigger refuses updates), newest first.

export type HistoryKind = HistoryEntry['kind'];

export interface NewHistoryEntry {
  workspaceId: string;
  projectId: string;
  kind: HistoryKind;
  /** The person who acted; null for the room or the platform. */
  byPerson: string | null;
  message?: string | null;
  linkId?: string | null;
  /** The link's viewer name, for link events. */
  viewer?: string | null;
  until?: Date | null;
}

export async function recordHistory(sql: Db, e: NewHistoryEntry): Promise<void> {
  await sql`
    insert into project_history (workspace_id, project_id, kind, by_person, message, link_id, viewer, until)
    values (${e.workspaceId}, ${e.projectId}, ${e.kind}, ${e.byPerson}, ${e.message ?? null}, ${e.linkId ?? null},
            ${e.viewer ?? null}, ${e.until ?? null})`;
}

/** The project's history as HistoryEntry[], newest first; `by` is the actor's display name today. */
export async function historyOf(sql: Sql, projectId: string): Promise<HistoryEntry[]> {
  const rows = await sql<
    {
      id: string;
      kind: HistoryKind;
      message: string | null;
      viewer: string | null;
      until: Date | null;
      at: Date;
      personName: string | null;
      personEmail: string | null;
    }[]
  >`
    select h.id, h.kind, h.message, h.viewer, h.until, h.at, p.name as person_name, p.email as person_email
    from project_history h left join people p on p.id = h.by_person
    where h.project_id = ${projectId}
    order by h.at desc, h.id desc`;
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    by: r.personEmail !== null ? displayNameOf({ name: r.personName ?? '', email: r.personEmail }) : null,
    message: r.message,
    viewer: r.viewer,
    until: r.until?.toISOString() ?? null,
    at: r.at.toISOString(),
  }));
}
