import { describe, expect, it } from 'vitest';
import { collapseTime, sessionEnd } from './journey-timeline.js';

const at = (s: number) => new Date(Date.UTC(2026, 10, 20, 9, 0, s)).toISOString();
const time = (subject: string, seconds: number, s: number) => ({ kind: 'time' as const, subject, seconds, at: at(s) });
const mark = (kind: 'entry' | 'step' | 'hidden' | 'shown' | 'leave', s: number) => ({ kind, subject: null, seconds: 0, at: at(s) });

describe('collapseTime', () => {
  it('makes one line of consecutive beats on one app, at the first beat, and keeps every other event in its place', () => {
    const beats = Array.from({ length: 36 }, (_, i) => time('flow', 5, 5 + i * 5));
    expect(
      collapseTime([mark('entry', 0), ...beats, time('admin', 5, 185), time('flow', 5, 190), mark('hidden', 191), time('flow', 5, 300)]),
    ).toEqual([
      mark('entry', 0),
      time('flow', 180, 5),
      time('admin', 5, 185),
      time('flow', 5, 190),
      mark('hidden', 191),
      time('flow', 5, 300),
    ]);
  });

  it('leaves the events it is given as they were', () => {
    const events = [time('flow', 5, 5), time('flow', 5, 10)];
    collapseTime(events);
    expect(events).toEqual([time('flow', 5, 5), time('flow', 5, 10)]);
  });
});

describe('sessionEnd', () => {
  const now = new Date(Date.UTC(2026, 10, 20, 10, 0, 0));
  const ago = (s: number) => new Date(now.getTime() - s * 1000);
  it('is the leave when there was one', () => {
    expect(sessionEnd({ endedAt: ago(600), lastHeardAt: ago(600) }, now)).toEqual({ endedAt: ago(600), endReason: 'left' });
  });
  it('is the last moment heard from once the room has heard nothing for 120 s, as a quiet visit ends', () => {
    expect(sessionEnd({ endedAt: null, lastHeardAt: ago(900) }, now)).toEqual({ endedAt: ago(900), endReason: 'quiet' });
    expect(sessionEnd({ endedAt: null, lastHeardAt: ago(120) }, now)).toEqual({ endedAt: ago(120), endReason: 'quiet' });
  });
  it('is none while the room heard from the session within 120 s', () => {
    expect(sessionEnd({ endedAt: null, lastHeardAt: ago(119) }, now)).toEqual({ endedAt: null, endReason: null });
  });
});
