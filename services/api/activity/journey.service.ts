import type { Journey } from '@demo-rooms/contract';
import type { Sql } from '../../core/infra/db.js';
import { planLimit, planOf } from '../../core/rules/plans.js';
import { liveStories } from '../../data/builds.sql.js';
import { claimsOf } from '../../data/link-claims.sql.js';
import { linkIn } from '../../data/links.sql.js';
import { eventsOfLink, type EventRow } from '../../data/room-events.sql.js';
import { namesOf } from '../../data/subject-names.sql.js';
import { sessionsOfLink } from '../../data/room-sessions.sql.js';
import { planNameOf } from '../../data/workspaces.sql.js';
import { linkView } from '../links/link-view.js';
import { collapseTime, sessionEnd } from './journey-timeline.js';

// journey (spec 4.2; issue 15, item 6): one link's people, sessions with their timelines, time
// outside the room, and the tour's progress. Sessions come from the events (which outlive the
// sessions the sweep removes), the claims and the link's room sessions, whichever knows them.

/** Seconds each session's tab was hidden: from each hidden to the next shown or leave. */
export function outsideSeconds(events: Pick<EventRow, 'kind' | 'at'>[]): number {
  let hiddenAt: Date | null = null;
  let seconds = 0;
  for (const e of events) {
    if (e.kind === 'hidden') hiddenAt ??= e.at;
    else if ((e.kind === 'shown' || e.kind === 'leave') && hiddenAt) {
      seconds += Math.max(0, (e.at.getTime() - hiddenAt.getTime()) / 1000);
      hiddenAt = null;
    }
  }
  return Math.round(seconds);
}

export async function journeyOf(sql: Sql, workspaceId: string, linkId: string): Promise<Journey> {
  const link = await linkIn(sql, workspaceId, linkId);
  const plan = await planNameOf(sql, workspaceId);
  if (!planOf(plan).fullAnalytics) throw planLimit('analytics', plan);
  const [events, claims, roomSessions, stories, names] = await Promise.all([
    eventsOfLink(sql, link.id),
    claimsOf(sql, link.id),
    sessionsOfLink(sql, link.id),
    liveStories(sql, workspaceId, link.projectId),
    namesOf(sql, link.projectId),
  ]);

  type Seen = {
    id: string;
    name: string | null;
    email: string | null;
    device: Journey['sessions'][number]['device'];
    startedAt: Date | null;
    endedAt: Date | null;
    /** The last moment the room heard from the session: its last beat or event. */
    lastHeardAt: Date | null;
    events: EventRow[];
  };
  const seen = new Map<string, Seen>();
  const sessionOf = (id: string) => {
    let s = seen.get(id);
    if (!s)
      seen.set(id, (s = { id, name: null, email: null, device: null, startedAt: null, endedAt: null, lastHeardAt: null, events: [] }));
    return s;
  };
  const later = (a: Date | null, b: Date) => (a && a > b ? a : b);
  for (const r of roomSessions)
    Object.assign(sessionOf(r.id), {
      name: r.viewerName,
      email: r.viewerEmail,
      startedAt: r.createdAt,
      endedAt: r.endedAt,
      lastHeardAt: r.lastSeenAt,
    });
  for (const c of claims) {
    const s = sessionOf(c.sessionId);
    s.name = c.name ?? s.name;
    s.email = c.email ?? s.email;
    s.device = c.device ?? s.device;
    s.startedAt ??= c.firstSeenAt;
  }
  for (const e of events) {
    if (!e.sessionId) continue;
    const s = sessionOf(e.sessionId);
    s.events.push(e);
    s.device ??= e.device;
    if (!s.startedAt || e.at < s.startedAt) s.startedAt = e.at;
    s.lastHeardAt = later(s.lastHeardAt, e.at);
    // A leave ends the session unless it went on after it (a reload leaves, then enters again).
    if (e.kind === 'leave') s.endedAt = e.at;
    else if (s.endedAt && e.at > s.endedAt) s.endedAt = null;
  }
  const now = new Date();
  const sessions = [...seen.values()].sort(
    (a, b) => (a.startedAt?.getTime() ?? 0) - (b.startedAt?.getTime() ?? 0) || a.id.localeCompare(b.id),
  );

  const people = peopleOf(sessions);

  const story = stories.get(link.projectId);
  const taken = new Set(events.filter((e) => e.kind === 'step' && e.subject).map((e) => e.subject as string));
  return {
    link: linkView(link),
    people,
    sessions: sessions.map((s) => {
      const time: Record<string, number> = {};
      for (const e of s.events) if (e.kind === 'time' && e.subject) time[e.subject] = (time[e.subject] ?? 0) + e.seconds;
      const startedAt = s.startedAt ?? now;
      const end = sessionEnd({ endedAt: s.endedAt, lastHeardAt: later(s.lastHeardAt, startedAt) }, now);
      return {
        id: s.id,
        name: s.name,
        device: s.device,
        startedAt: startedAt.toISOString(),
        endedAt: end.endedAt?.toISOString() ?? null,
        endReason: end.endReason,
        timeline: collapseTime(s.events.map((e) => ({ kind: e.kind, subject: e.subject, seconds: e.seconds, at: e.at.toISOString() }))),
        time,
      };
    }),
    outside: sessions
      .filter((s) => s.events.some((e) => e.kind === 'hidden'))
      .map((s) => ({ sessionId: s.id, seconds: outsideSeconds(s.events) })),
    tour: story ? { steps: story.length, taken: story.filter((id) => taken.has(id)).length } : null,
    // Every raw event is kept (nothing removes them yet), so the timelines are whole.
    windowStart: null,
    names,
  };
}

/**
 * The people behind a link's sessions: one person per name (trimmed, any case), whatever browser
 * or device each session came from, and whether or not a session gave the email; two sessions
 * under one name with two different emails are two people. Unnamed sessions are one person each.
 */
export function peopleOf(sessions: { name: string | null; email: string | null }[]): Journey['people'] {
  const people: (Journey['people'][number] & { key: string | null })[] = [];
  for (const s of sessions) {
    const key = s.name?.trim().toLowerCase() || null;
    const email = s.email?.toLowerCase() ?? null;
    const same = key === null ? undefined : people.find((p) => p.key === key && (!email || !p.email || p.email.toLowerCase() === email));
    if (same) {
      same.sessions++;
      same.email ??= s.email;
    } else people.push({ key, name: s.name, email: s.email, sessions: 1 });
  }
  return people.map(({ key: _key, ...person }) => person);
}
