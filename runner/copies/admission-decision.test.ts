import { describe, expect, it } from 'vitest';
import type { AdmissionCounts } from '../../services/data/copy-admission-batch.sql.js';
import { type Arrival, queuePass, Tally } from './admission-decision.js';
import { askAgainIn } from './copy-view.js';

// The batch decision alone, in memory: the same rules a single admission applies, each decision
// counted before the next, so a batch can never pass a cap that one-at-a-time admission keeps.

const empty = (over: Partial<AdmissionCounts> = {}): AdmissionCounts => ({
  existing: [],
  latest: {},
  rooms: {},
  workspaces: {},
  host: [0, 0],
  warm: {},
  ...over,
});

let n = 0;
const arrival = (over: Partial<Arrival> = {}): Arrival => ({
  sessionId: `s${++n}`,
  workspaceId: 'w1',
  projectId: 'p1',
  buildId: 'b1',
  copyCap: 3,
  roomCap: 10,
  ...over,
});

describe('a batch of arrivals', () => {
  it('admits up to the workspace cap, then queues everyone after in order', () => {
    const tally = new Tally(empty(), 100);
    const kinds = Array.from({ length: 6 }, () => tally.decide(arrival()).kind);
    expect(kinds).toEqual(['admit', 'admit', 'admit', 'queue', 'queue', 'queue']);
  });

  it('queues a newcomer behind anyone already waiting, even when a slot is free', () => {
    const tally = new Tally(empty({ workspaces: { w1: [0, 1, 0] } }), 100);
    expect(tally.decide(arrival()).kind).toBe('queue');
  });

  it('holds the host to its capacity across workspaces', () => {
    const tally = new Tally(empty({ host: [1, 0] }), 3);
    const kinds = ['w1', 'w2', 'w3', 'w4'].map((w) => tally.decide(arrival({ workspaceId: w })).kind);
    expect(kinds).toEqual(['admit', 'admit', 'queue', 'queue']);
  });

  it('refuses past the room cap, counting places in the queue, and refuses plans without containers', () => {
    const tally = new Tally(empty({ rooms: { p1: 1 } }), 100);
    const kinds = Array.from({ length: 4 }, () => tally.decide(arrival({ copyCap: 1, roomCap: 3 })).kind);
    expect(kinds).toEqual(['admit', 'queue', 'full', 'full']);
    expect(tally.decide(arrival({ copyCap: 0, projectId: 'p2' }))).toEqual({ kind: 'full', reason: 'plan' });
  });

  it('answers a session that has a copy, or was decided earlier in the batch, as existing', () => {
    const tally = new Tally(empty({ existing: ['old'] }), 100);
    expect(tally.decide(arrival({ sessionId: 'old' })).kind).toBe('existing');
    expect(tally.decide(arrival({ sessionId: 'twice' })).kind).toBe('admit');
    expect(tally.decide(arrival({ sessionId: 'twice' })).kind).toBe('existing');
  });

  it("starts nothing for an ask made before the session's latest copy (a timed-out call decided after its retry)", () => {
    const tally = new Tally(empty({ latest: { gone: 'c2', back: 'c1' } }), 100);
    // The ask saw c1 as the latest; the session has had c2 since (its viewer came and left).
    expect(tally.decide(arrival({ sessionId: 'gone', after: 'c1' })).kind).toBe('existing');
    expect(tally.decide(arrival({ sessionId: 'never', after: 'c9' })).kind).toBe('existing');
    // The next attempt after what it saw: let in.
    expect(tally.decide(arrival({ sessionId: 'back', after: 'c1' })).kind).toBe('admit');
    expect(tally.decide(arrival({ sessionId: 'new', after: null })).kind).toBe('admit');
  });

  it('hands out warm copies of the build first, each once, without taking a slot', () => {
    const tally = new Tally(empty({ warm: { b1: ['c1', 'c2'] }, workspaces: { w1: [3, 0, 2] }, host: [3, 2] }), 3);
    expect(tally.decide(arrival())).toEqual({ kind: 'claim', copyId: 'c1' });
    expect(tally.decide(arrival())).toEqual({ kind: 'claim', copyId: 'c2' });
    // Full now, but the workspace and the host have copies nobody looks at: one may be given up.
    expect(tally.decide(arrival()).kind).toBe('evict');
    tally.noneToGiveUp('w1');
    expect(tally.decide(arrival()).kind).toBe('queue');
  });

  it('never gives a copy up when a cap is already passed (lowered since)', () => {
    const tally = new Tally(empty({ workspaces: { w1: [5, 0, 2] }, host: [5, 2] }), 100);
    expect(tally.decide(arrival()).kind).toBe('queue');
  });
});

describe('a pass over the queue', () => {
  const q = (id: string, workspaceId: string) => ({ id, workspaceId, buildId: 'b1' });

  it('lets in each workspace while its cap allows, in order, and stops a workspace at its head', () => {
    const tally = new Tally(empty({ workspaces: { w1: [1, 3, 0], w2: [0, 2, 0] } }), 100);
    const caps = new Map([
      ['w1', 2],
      ['w2', 5],
    ]);
    const pass = queuePass(tally, [q('a1', 'w1'), q('a2', 'w1'), q('a3', 'w1'), q('b1', 'w2'), q('b2', 'w2')], caps);
    expect(pass.let.map((l) => l.id)).toEqual(['a1', 'b1', 'b2']);
    expect(pass.stoppedAt).toBeNull();
  });

  it('stops at a full host', () => {
    const tally = new Tally(empty({ host: [1, 0] }), 2);
    const pass = queuePass(
      tally,
      [q('a1', 'w1'), q('b1', 'w2')],
      new Map([
        ['w1', 5],
        ['w2', 5],
      ]),
    );
    expect(pass.let.map((l) => l.id)).toEqual(['a1']);
  });

  it('stops where a copy must be given up, and carries on past it with the workspaces already blocked', () => {
    const tally = new Tally(empty({ workspaces: { w1: [1, 2, 0], w2: [1, 1, 1] } }), 100);
    const caps = new Map([
      ['w1', 1],
      ['w2', 1],
    ]);
    const queued = [q('a1', 'w1'), q('b1', 'w2'), q('a2', 'w1')];
    const blocked = new Set<string>();
    const first = queuePass(tally, queued, caps, 0, blocked);
    expect(first).toEqual({ let: [], stoppedAt: 1 });
    tally.noneToGiveUp('w2');
    const rest = queuePass(tally, queued, caps, 1, blocked);
    // a2 stays behind its own head a1: nobody is overtaken.
    expect(rest).toEqual({ let: [], stoppedAt: null });
  });
});

describe('when a queued viewer asks again', () => {
  it('is about 2 s at the head, later further back, never past 10 s, and jittered ±20 %', () => {
    expect(askAgainIn(1, () => 0.5)).toBe(2_000);
    expect(askAgainIn(101, () => 0.5)).toBe(4_000);
    expect(askAgainIn(5_000, () => 0.5)).toBe(10_000);
    expect(askAgainIn(1, () => 0)).toBe(1_600);
    expect(askAgainIn(1, () => 0.999_999)).toBe(2_400);
  });
});
