import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { burstProblems, runBurst } from '../../bench/admission-burst-run.js';
import { startHealthServer } from '../../bench/admission-kit.js';
import { StubEngine } from '../../bench/stub-engine.js';

// The admission benchmark's own parts (bench/admission-burst.bench.ts), small: the stub engine
// keeps the engine's promises the runner leans on, and a burst of a few dozen viewers on two
// real runners passes every check the 10,000-viewer one makes, with the hosts' cap binding.

let health: Awaited<ReturnType<typeof startHealthServer>>;
beforeAll(async () => {
  health = await startHealthServer();
});
afterAll(() => health.close());

describe('the stub engine', () => {
  it('calls made then running, answers at its address, and lists, states and stops per runner', async () => {
    const engine = new StubEngine({ startDelayMs: 5, address: '127.0.0.1' });
    const seen: string[] = [];
    const ids = { copyId: 'c1', buildId: 'b1', projectId: 'p1', workspaceId: 'w1', runnerId: 'r1' };
    const spec = {
      ...ids,
      image: await engine.prepare({ tag: 't', recordedId: null }),
      start: null,
      env: {},
      port: 8080,
      memoryMb: 256,
      cpus: 0.5,
      pids: 128,
      writableMb: 64,
    };
    const started = await engine.start(spec, {
      signal: new AbortController().signal,
      phase: () => {},
      made: async (handle) => void seen.push(`made ${handle === undefined ? '?' : 'handle'}`),
      running: async () => void seen.push('running'),
    });
    expect(seen).toEqual(['made handle', 'running']);
    expect(started.address).toBe('127.0.0.1');
    expect((await engine.state(started.handle))?.status).toBe('running');
    expect((await engine.list('r1')).map((c) => c.copyId)).toEqual(['c1']);
    expect(await engine.list('r2')).toEqual([]);
    await engine.stop({ runnerId: 'r1', copyId: 'c1' });
    expect(await engine.state(started.handle)).toBeNull();
    expect(engine.holding('r1')).toBe(0);
  });

  it('gives up a start whose viewer left (the runner aborts it)', async () => {
    const engine = new StubEngine({ startDelayMs: 10_000, address: '127.0.0.1' });
    const ac = new AbortController();
    const ids = { copyId: 'c2', buildId: 'b1', projectId: 'p1', workspaceId: 'w1', runnerId: 'r1' };
    const spec = { ...ids, image: 'i', start: null, env: {}, port: 8080, memoryMb: 256, cpus: 0.5, pids: 128, writableMb: 64 };
    const start = engine.start(spec, { signal: ac.signal, phase: () => {}, made: async () => {}, running: async () => {} });
    ac.abort(new Error('left'));
    await expect(start).rejects.toThrow();
  });
});

describe('a small burst on two runners over stub engines', () => {
  it('admits, queues and refuses as the plans say, never over a cap, and leaves nothing behind', async () => {
    // Two solo rooms (5 viewers at once, 3 copies) and a pro room (10 and 10), 7 and 12 viewers
    // each; two hosts of 6 copies: 12 slots for the 16 copies the plans would allow.
    const r = await runBurst({
      groups: [
        { plan: 'solo', workspaces: 2, projects: 1, viewers: 7 },
        { plan: 'pro', workspaces: 1, projects: 1, viewers: 12 },
      ],
      hosts: 2,
      hostCapacity: 6,
      startDelayMs: 20,
      dwellMs: 200,
      healthPort: health.port,
      giveUpMs: 90_000,
      sampleMs: 50,
      pool: 4,
    });
    expect(burstProblems(r)).toEqual([]);
    const outcomes = r.viewers.map((v) => v.outcome);
    expect(outcomes.filter((o) => o === 'served')).toHaveLength(5 + 5 + 10);
    expect(outcomes.filter((o) => o === 'full-room')).toHaveLength(2 + 2 + 2);
    // The hosts' cap bound: some viewers were told a place before they were let in.
    expect(r.viewers.some((v) => v.first === 'queued' && v.firstPlace! >= 1 && v.runningMs !== null)).toBe(true);
    expect(r.hostPeak).toBeLessThanOrEqual(6);
    expect(r.sampled.host).toBeLessThanOrEqual(6);
    expect(r.starts).toBe(20);
  }, 180_000);
});
