import type { Db } from '../core/infra/db.js';

// What the room saw, as events (migrations/00011; issue 15). The room writes them in batches, one
// insert a batch, so a busy room costs Postgres one statement per beacon, not one per event.
// Analytics and journeys read them (and the day roll-ups made of them).

export type EventKind = 'entry' | 'time' | 'step' | 'scenario' | 'answer' | 'comment' | 'hidden' | 'shown' | 'leave';
export type CoarseDevice = 'desktop' | 'tablet' | 'phone';

export interface RoomEvent {
  kind: EventKind;
  /** An app or page id (time), a step id (step), a scenario id or `reset` (scenario), a step kind (answer), an app id (comment). */
  subject?: string | null;
  seconds?: number;
  /** When it happened; now when left out. */
  at?: Date;
}

/** Who the events are of: a session of the room, not a preview. */
export interface EventSource {
  workspaceId: string;
  projectId: string;
  linkId: string | null;
  sessionId: string;
  visitId: string | null;
  device: CoarseDevice | null;
}

/** Writes the events in one statement. Nothing for a preview: the caller passes none. */
export async function recordEvents(sql: Db, source: EventSource, events: RoomEvent[]) {
  if (!events.length) return;
  const rows = events.map((e) => ({
    workspace_id: source.workspaceId,
    project_id: source.projectId,
    link_id: source.linkId,
    session_id: source.sessionId,
    visit_id: source.visitId,
    kind: e.kind,
    subject: e.subject ?? null,
    seconds: Math.max(0, Math.floor(e.seconds ?? 0)),
    device: source.device,
    at: e.at ?? new Date(),
  }));
  await sql`insert into room_events ${sql(rows, 'workspace_id', 'project_id', 'link_id', 'session_id', 'visit_id', 'kind', 'subject', 'seconds', 'device', 'at')}`;
}

export interface EventRow {
  id: string;
  linkId: string | null;
  sessionId: string | null;
  visitId: string | null;
  kind: EventKind;
  subject: string | null;
  seconds: number;
  device: CoarseDevice | null;
  at: Date;
}

/** A link's events, oldest first, from `since` on. */
export function eventsOfLink(sql: Db, linkId: string, since: Date | null = null) {
  return sql<EventRow[]>`
    select id, link_id, session_id, visit_id, kind, subject, seconds, device, at from room_events
    where link_id = ${linkId} and (${since}::timestamptz is null or at >= ${since})
    order by at, id`;
}
