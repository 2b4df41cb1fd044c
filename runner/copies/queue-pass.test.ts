import { describe, expect, it } from 'vitest';
import type { AdmissionCounts } from '../../services/data/copy-admission-batch.sql.js';
import { queuePass, Tally } from './queue-pass.js';
import { askAgainIn } from './copy-view.js';

// A pass over the queue alone, in memory: the rules a single admission applies, each decision
// counted before the next, so a pass can never let in past a cap that one-at-a-time admission
// keeps. (Arrivals are decided inside Postgres: admission-batch.int.test.ts.)

const empty = (over: Partial<AdmissionCounts> = {}): AdmissionCounts => ({
  workspaces: {},
  host: [0, 0],
  warm: {},
  ...over,
});

describe('a pass over the queue', () => {
  const q = (id: string, workspaceId: string) => ({ id, workspaceId, buildId: 'b1' });

  it('lets in each workspace while its cap allows, in order, and stops a workspace at its head', () => {
    const tally = new Tally(empty({ workspaces: { w1: [1, 0], w2: [0, 0] } }), 100);
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
    const tally = new Tally(empty({ workspaces: { w1: [1, 0], w2: [1, 1] } }), 100);
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
