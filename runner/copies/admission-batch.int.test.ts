import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/core/infra/config.js';
import { createSql } from '../../services/core/infra/db.js';
import type { PlanName } from '../../services/core/rules/plans.js';
import { placeOf } from '../../services/data/copies.sql.js';
import { lockCopySlots } from '../../services/data/copy-admission.sql.js';
import { seedWorkspace } from '../../test/support/runner/seed.js';
import { testRunnerEnv } from '../../test/support/runner/test-runner.js';
import { type Ask, admitViewers } from './admission-batch.js';
import { createAdmissionBatcher } from './admission-batcher.js';

// Arrivals decided in batches by one statement (admit_arrivals, migrations/00035) on the real
// Postgres, without a runner: each decision counted before the next, so a batch keeps every cap a
// one-at-a-time admission keeps, and concurrent batches on several hosts keep them together.

const sql = createSql(loadConfig(testRunnerEnv()).DATABASE_URL, { max: 10 });
afterAll(() => sql.end({ timeout: 2 }));

const host = (hostCapacity = 100) => ({ runnerId: `t-${randomUUID().slice(0, 8)}`, hostCapacity });

async function room(plan: PlanName = 'solo') {
  const workspaceId = await seedWorkspace(sql, plan);
  const projectId = randomUUID();
  await sql`insert into projects (id, workspace_id, slug, name) values (${projectId}, ${workspaceId}, ${`b-${projectId.slice(0, 13)}`}, 'Batch')`;
  return { workspaceId, projectId, buildId: randomUUID() };
}

const asks = (r: Awaited<ReturnType<typeof room>>, n: number, over: Partial<Ask> = {}): Ask[] =>
  Array.from({ length: n }, () => ({ ...r, sessionId: randomUUID(), ...over }));

const kinds = (xs: { kind: string }[]) => xs.map((x) => x.kind);

describe('a batch of arrivals', () => {
  it('admits up to the copy cap, queues the rest in order, and refuses past the room cap', async () => {
    // Solo: 3 copies at once, 5 viewers at once in a room (a place in line counts).
    const r = await room('solo');
    const out = await admitViewers(sql, host(), asks(r, 7));
    expect(kinds(out)).toEqual(['admitted', 'admitted', 'admitted', 'queued', 'queued', 'full', 'full']);
    const queued = out.filter((a) => a.kind === 'queued').map((a) => (a.kind === 'queued' ? a.copy : null)!);
    expect(queued[0].askedAt.getTime()).toBeLessThanOrEqual(queued[1].askedAt.getTime());
    // Each told their place by the batch's own read, as a read of its own would count it.
    expect(queued.map((q) => q.place)).toEqual([1, 2]);
    for (const q of queued) expect(await placeOf(sql, q)).toBe(q.place);
    const [events] = await sql<{ n: number }[]>`
      select count(*)::int as n from copy_events where copy_id = any(${queued.map((q) => q.id)}::uuid[]) and kind = 'queued'`;
    expect(events.n).toBe(2);
  });

  it('queues a newcomer behind anyone waiting, even when a slot is free', async () => {
    const r = await room('solo');
    const h = host();
    const first = await admitViewers(sql, h, asks(r, 4));
    expect(kinds(first)).toEqual(['admitted', 'admitted', 'admitted', 'queued']);
    const one = first[0].kind === 'admitted' ? first[0].copy : null;
    await sql`update runner_copies set state = 'ended', ended_at = clock_timestamp(), end_reason = 'left' where id = ${one!.id}`;
    const [later] = await admitViewers(sql, h, asks(r, 1));
    expect(later.kind === 'queued' && later.copy.place).toBe(2);
  });

  it('holds the host to its capacity across workspaces, and a plan without containers is full', async () => {
    const h = host(2);
    const [a, b, c] = [await room('pro'), await room('pro'), await room('pro')];
    const out = await admitViewers(sql, h, [...asks(a, 1), ...asks(b, 1), ...asks(c, 1)]);
    expect(kinds(out)).toEqual(['admitted', 'admitted', 'queued']);
    const free = await room('free');
    expect(await admitViewers(sql, h, asks(free, 1))).toEqual([{ kind: 'full', reason: 'plan' }]);
  });

  it('decides a session once: its copy, a second ask in the batch, a stale attempt and a caller gone start nothing', async () => {
    const r = await room('pro');
    const h = host();
    const [s1, s2] = [randomUUID(), randomUUID()];
    const out = await admitViewers(sql, h, [
      { ...r, sessionId: s1 },
      { ...r, sessionId: s1 },
      { ...r, sessionId: s2, after: randomUUID() },
      { ...r, sessionId: randomUUID(), gone: () => true },
    ]);
    expect(kinds(out)).toEqual(['admitted', 'existing', 'existing', 'existing']);
    expect(kinds(await admitViewers(sql, h, [{ ...r, sessionId: s1, after: null }]))).toEqual(['existing']);
    const [n] = await sql<{ n: number }[]>`select count(*)::int as n from runner_copies where project_id = ${r.projectId}`;
    expect(n.n).toBe(1);
  });

  it('hands a warm copy of the build to the viewer, and gives up a paused one for a viewer who would wait', async () => {
    const r = await room('pro');
    const h = host(1);
    const warm = randomUUID();
    await sql`insert into runner_copies (id, runner_id, workspace_id, project_id, build_id, origin, state, admitted_at, ready_at)
              values (${warm}, ${h.runnerId}, ${r.workspaceId}, ${r.projectId}, ${r.buildId}, 'warm', 'warm', now(), now())`;
    const [claimed] = await admitViewers(sql, h, asks(r, 1));
    expect(claimed.kind === 'claimed' && claimed.copy).toMatchObject({ id: warm, state: 'running' });
    // The host is full with that copy; paused, it is given up for the next viewer.
    await sql`update runner_copies set state = 'paused', paused_at = now() where id = ${warm}`;
    const [next] = await admitViewers(sql, h, asks(r, 1));
    expect(next.kind).toBe('admitted');
    expect(next.kind === 'admitted' && next.evicted.map((e) => e.id)).toEqual([warm]);
    const [gone] = await sql<{ state: string; endReason: string }[]>`select state, end_reason from runner_copies where id = ${warm}`;
    expect(gone).toEqual({ state: 'ended', endReason: 'evicted' });
  });

  it('keeps the caps when batches on several hosts race for one workspace', async () => {
    const r = await room('team'); // 25 copies, 20 viewers a room: the room binds first
    const rooms = [r, { ...r, projectId: randomUUID() }];
    await sql`insert into projects (id, workspace_id, slug, name) values (${rooms[1].projectId}, ${r.workspaceId}, ${`b-${rooms[1].projectId.slice(0, 13)}`}, 'Batch')`;
    const hosts = [host(8), host(8), host(8), host(8)];
    const results = await Promise.all(Array.from({ length: 12 }, (_, k) => admitViewers(sql, hosts[k % 4], asks(rooms[k % 2], 5))));
    const all = results.flat();
    const admitted = all.filter((a) => a.kind === 'admitted').length;
    const queued = all.filter((a) => a.kind === 'queued').length;
    // Each room lets in or queues 20 of its 30; never more than the workspace's 25 copies, nor 8 on
    // a host (a host full queues its next viewer, and everyone after queues behind them).
    expect(admitted + queued).toBe(40);
    expect(admitted).toBeGreaterThanOrEqual(16);
    expect(admitted).toBeLessThanOrEqual(25);
    const perHost = await sql<{ n: number }[]>`
      select count(*)::int as n from runner_copies where workspace_id = ${r.workspaceId} and state = 'creating' group by runner_id`;
    expect(Math.max(...perHost.map((h) => h.n))).toBeLessThanOrEqual(8);
    const perRoom = await sql<{ n: number }[]>`
      select count(*)::int as n from runner_copies where workspace_id = ${r.workspaceId} and state <> 'ended' group by project_id`;
    expect(perRoom.map((p) => p.n)).toEqual([20, 20]);
  });
});

/** Holds the workspace's admission lock in a transaction of its own, as another host's admission does, until `release()`. */
async function holdWorkspace(workspaceId: string) {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let taken!: () => void;
  const held = new Promise<void>((r) => (taken = r));
  const done = sql.begin(async (tx) => {
    await lockCopySlots(tx, workspaceId, host().runnerId);
    taken();
    await released;
  });
  await held;
  return async () => {
    release();
    await done;
  };
}

describe('a batch beside another host deciding a workspace', () => {
  it("answers that workspace's asks busy without waiting, writes nothing for them, and decides the rest", async () => {
    const [held, free] = [await room('solo'), await room('solo')];
    const release = await holdWorkspace(held.workspaceId);
    try {
      const [a, b] = [...asks(held, 1), ...asks(free, 1)];
      expect(kinds(await admitViewers(sql, host(), [a, b], false))).toEqual(['busy', 'admitted']);
      const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from runner_copies where workspace_id = ${held.workspaceId}`;
      expect(n).toBe(0);
    } finally {
      await release();
    }
    expect(kinds(await admitViewers(sql, host(), asks(held, 1), false))).toEqual(['admitted']);
  });

  it('waits for the lock when told to, and then decides', async () => {
    const r = await room('solo');
    const release = await holdWorkspace(r.workspaceId);
    let decided = false;
    const batch = admitViewers(sql, host(), asks(r, 1), true).then((out) => {
      decided = true;
      return out;
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(decided).toBe(false);
    await release();
    expect(kinds(await batch)).toEqual(['admitted']);
  });

  it("the host's batcher decides other workspaces meanwhile, and the held one's viewer once it is free", async () => {
    const [held, free] = [await room('solo'), await room('solo')];
    const batcher = createAdmissionBatcher(sql, host());
    const release = await holdWorkspace(held.workspaceId);
    try {
      const waiting = batcher.admit(asks(held, 1)[0]);
      // Asked after, decided first: its workspace is nobody else's.
      expect((await batcher.admit(asks(free, 1)[0])).kind).toBe('admitted');
      await release();
      // Asked again while held (busy), then with waiting (migrations/00043): let in once the lock is free.
      expect((await waiting).kind).toBe('admitted');
      expect(batcher.stats.decisions).toBe(2);
    } finally {
      await release();
      batcher.close();
    }
  });
});
