import type { Journey } from '@demo-rooms/contract';
import { quietSeconds } from '../../data/visits.sql.js';

// What a journey says of one session's events (issue 47, item 8): the room's beat sends the
// visible time every few seconds, one `time` event each, so a quarter of an hour on one app was
// dozens of "5 s on Flow editor" lines; and a session whose browser closed without its leave
// beacon "may still be going" for ever.

type Event = Journey['sessions'][number]['timeline'][number];

/**
 * The timeline as the builder reads it: consecutive time on the same app or page is one line,
 * its seconds summed, at the first beat's moment (when the run was first counted). Any other
 * event between two beats (a step, the tab hidden) keeps them apart, so the order of what the
 * viewer did is kept.
 */
export function collapseTime(events: Event[]): Event[] {
  const lines: Event[] = [];
  for (const e of events) {
    const last = lines.at(-1);
    if (e.kind === 'time' && last?.kind === 'time' && last.subject === e.subject) last.seconds += e.seconds;
    else lines.push({ ...e });
  }
  return lines;
}

/**
 * How the session ended, and when. A leave beacon is the viewer leaving (`left`); a session the
 * room heard nothing from for `quietSeconds` (the rule that ends a quiet visit, visits.sql.ts) has
 * ended at the last moment it was heard from (`quiet`: the browser closed or lost its network
 * without saying so). Otherwise it may still be going (null).
 */
export function sessionEnd(
  s: { endedAt: Date | null; lastHeardAt: Date },
  now: Date,
): { endedAt: Date | null; endReason: 'left' | 'quiet' | null } {
  if (s.endedAt) return { endedAt: s.endedAt, endReason: 'left' };
  if (now.getTime() - s.lastHeardAt.getTime() >= quietSeconds * 1000) return { endedAt: s.lastHeardAt, endReason: 'quiet' };
  return { endedAt: null, endReason: null };
}
