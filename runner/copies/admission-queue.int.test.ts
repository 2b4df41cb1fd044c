import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/core/infra/config.js';
import { createSql, type Sql } from '../../services/core/infra/db.js';
import type { PlanName } from '../../services/core/rules/plans.js';
import { admitQueued, type QueuedDecision } from '../../services/data/copy-admission-batch.sql.js';
import { seedWorkspace } from '../../test/support/runner/seed.js';
import { testRunnerEnv } from '../../test/support/runner/test-runner.js';
import { admitQueuedOnce } from './admission-batch.js';
import type { Admission } from './copy-admission.js';

// A host's pass over the queue (admit_queued, migrations/00042, and the transaction that gives
// copies up for the rest) on the real Postgres, without a runner: the order kept, the caps kept
// when two hosts pass at once, a warm copy handed over, a workspace another host holds left alone,
// and a copy given up where that makes room.

const env = loadConfig(testRunnerEnv());
// Two clients, as two runner processes have.
const sql = createSql(env.DATABASE_URL, { max: 10 });
const other = createSql(env.DATABASE_URL, { max: 4 });
afterAll(() => Promise.all([sql.end({ timeout: 2 }), other.end({ timeout: 2 })]));

const host = (hostCapacity = 100) => ({ runnerId: `t-${randomUUID().slice(0, 8)}`, hostCapacity });
type Host = ReturnType<typeof host>;

async function room(plan: PlanName) {
  const workspaceId = await seedWorkspace(sql, plan);
  const projectId = randomUUID();
  await sql`insert into projects (id, workspace_id, slug, name) values (${projectId}, ${workspaceId}, ${`q-${projectId.slice(0, 13)}`}, 'Queue')`;
  return { workspaceId, projectId, buildId: randomUUID() };
}
type Room = Awaited<ReturnType<typeof room>>;

/** `n` viewers waiting in the room's line on `runnerId`, a millisecond apart; their ids in order. */
async function queue(r: Room, runnerId: string, n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, () => randomUUID());
  for (const [i, id] of ids.entries())
    await sql`insert into runner_copies (id, runner_id, workspace_id, project_id, build_id, session_id, origin, state, asked_at)
              values (${id}, ${runnerId}, ${r.workspaceId}, ${r.projectId}, ${r.buildId}, ${randomUUID()}, 'viewer', 'queued',
                      clock_timestamp() - interval '1 minute' + ${i} * interval '1 millisecond')`;
  return ids;
}

/** A copy of the room on `runnerId` in `state`, nobody's. */
async function copy(r: Room, runnerId: string, state: 'warm' | 'paused' | 'running') {
  const id = randomUUID();
  await sql`insert into runner_copies (id, runner_id, workspace_id, project_id, build_id, session_id, origin, state, admitted_at, ready_at, paused_at)
            values (${id}, ${runnerId}, ${r.workspaceId}, ${r.projectId}, ${r.buildId}, ${state === 'warm' ? null : randomUUID()},
                    ${state === 'warm' ? 'warm' : 'viewer'}, ${state}, now(), now(), ${state === 'paused' ? sql`now()` : null})`;
  return id;
}

async function pass(db: Sql, h: Host, peers: string[] = []) {
  const out: Admission[] = [];
  const counts = await admitQueuedOnce(db, h, peers, (a) => out.push(a));
  return { ...counts, out };
}

const states = (ids: string[]) =>
  sql<{ id: string; state: string; runnerId: string; admittedAt: Date | null }[]>`
    select id, state, runner_id, admitted_at from runner_copies where id = any(${ids}::uuid[])`.then((rows) =>
    ids.map((id) => rows.find((r) => r.id === id)!),
  );

describe('a pass over the queue', () => {
  it("lets in a workspace's viewers in their order, up to its cap, and leaves the rest waiting", async () => {
    const h = host();
    const r = await room('solo'); // 3 copies at once
    const ids = await queue(r, h.runnerId, 5);
    const { let: n, out } = await pass(sql, h);
    expect(n).toBe(3);
    expect(out.map((a) => a.kind === 'admitted' && a.copy.id)).toEqual(ids.slice(0, 3));
    const after = await states(ids);
    expect(after.map((c) => c.state)).toEqual(['creating', 'creating', 'creating', 'queued', 'queued']);
    const byAdmission = await sql<{ id: string }[]>`
      select id from runner_copies where id = any(${ids}::uuid[]) and state = 'creating' order by admitted_at`;
    expect(byAdmission.map((c) => c.id)).toEqual(ids.slice(0, 3));
    // An admission writes no event (the start does); the pass moved each record once.
    const [seqs] = await sql<{ seq: number[]; events: number }[]>`
      select array_agg(seq order by asked_at) as seq, (select count(*)::int from copy_events where copy_id = any(${ids}::uuid[])) as events
      from runner_copies where id = any(${ids}::uuid[])`;
    expect(seqs).toEqual({ seq: [1, 1, 1, 0, 0], events: 0 });
    // Nothing frees: the next pass lets nobody in.
    expect((await pass(sql, h)).let).toBe(0);
  });

  it('keeps every cap when hosts pass over one fleet queue at once', async () => {
    // Four hosts of 5 copies, three workspaces wanting 10 + 10 + 3: the hosts bind, then the workspaces.
    const hosts = [host(5), host(5), host(5), host(5)];
    const rooms = [await room('pro'), await room('pro'), await room('solo')];
    const lines = [];
    for (const r of rooms) lines.push(await queue(r, hosts[0].runnerId, 12));
    // Each host goes round as its runner does (again while it lets anyone in or finds a workspace
    // taken), at the same time as the others, two on each of two clients.
    const peersOf = (h: Host) => hosts.filter((x) => x !== h).map((x) => x.runnerId);
    for (let round = 0; round < 50; round++) {
      const passes = await Promise.all(hosts.map((h, k) => pass(k % 2 ? other : sql, h, peersOf(h))));
      if (passes.every((p) => !p.let && !p.skipped)) break;
    }
    const perHost = await sql<{ runnerId: string; n: number }[]>`
      select runner_id, count(*)::int as n from runner_copies
      where workspace_id = any(${rooms.map((r) => r.workspaceId)}::uuid[]) and state = 'creating' group by runner_id`;
    expect(perHost.map((p) => p.n)).toEqual([5, 5, 5, 5]);
    let total = 0;
    for (const [k, ids] of lines.entries()) {
      const after = await states(ids);
      const inCount = after.filter((c) => c.state === 'creating').length;
      expect(inCount).toBeLessThanOrEqual(k === 2 ? 3 : 10);
      total += inCount;
      // First come, first served: those let in are the first of their line.
      expect(after.map((c) => c.state)).toEqual(ids.map((_, i) => (i < inCount ? 'creating' : 'queued')));
    }
    expect(total).toBe(20);
  });

  it('hands a warm copy of the build on this host to the viewer at the head', async () => {
    const h = host();
    const r = await room('pro');
    const warm = await copy(r, h.runnerId, 'warm');
    const [waiting, next] = await queue(r, h.runnerId, 2);
    const [{ sessionId }] = await sql<{ sessionId: string }[]>`select session_id from runner_copies where id = ${waiting}`;
    const { out } = await pass(sql, h);
    expect(out.map((a) => [a.kind, a.kind !== 'existing' && a.kind !== 'full' && a.copy.id])).toEqual([
      ['claimed', warm],
      ['admitted', next],
    ]);
    const [claimed] = await sql<{ state: string; sessionId: string; seq: number; claimedAt: Date | null }[]>`
      select state, session_id, seq, claimed_at from runner_copies where id = ${warm}`;
    expect(claimed).toMatchObject({ state: 'running', sessionId, seq: 1 });
    expect(claimed.claimedAt).not.toBeNull();
    const events = await sql<{ kind: string; seq: number }[]>`select kind, seq from copy_events where copy_id = ${warm}`;
    expect(events).toEqual([{ kind: 'claim', seq: 1 }]);
    const [handed] = await sql<{ state: string; endReason: string; seq: number }[]>`
      select state, end_reason, seq from runner_copies where id = ${waiting}`;
    expect(handed).toEqual({ state: 'ended', endReason: 'handed-over', seq: 1 });
  });

  it('leaves a workspace another host is letting in, and lets the others in', async () => {
    const h = host();
    const [held, free] = [await room('pro'), await room('pro')];
    const [heldIds, freeIds] = [await queue(held, h.runnerId, 2), await queue(free, h.runnerId, 2)];
    let release = () => {};
    const holding = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked = () => {};
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = other.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtext(${`runner.workspace:${held.workspaceId}`}))`;
      locked();
      await holding;
    });
    await isLocked;
    const during = await pass(sql, h);
    release();
    await holder;
    expect(during).toMatchObject({ let: 2, skipped: 1 });
    expect((await states(heldIds)).map((c) => c.state)).toEqual(['queued', 'queued']);
    expect((await states(freeIds)).map((c) => c.state)).toEqual(['creating', 'creating']);
    expect(await pass(sql, h)).toMatchObject({ let: 2, skipped: 0 });
  });

  it('gives up a paused copy for the head of a workspace at its cap, then stops that workspace', async () => {
    const h = host();
    const r = await room('solo'); // 3 copies at once: two running and one paused
    await copy(r, h.runnerId, 'running');
    await copy(r, h.runnerId, 'running');
    const paused = await copy(r, `t-elsewhere-${randomUUID().slice(0, 8)}`, 'paused');
    const ids = await queue(r, h.runnerId, 2);
    // The statement leaves the giving up to the transaction that follows, and names the workspace.
    // (Seen in a transaction rolled back, so the pass below starts from the same rows.)
    const undo = new Error('undo');
    let alone: QueuedDecision[] = [];
    await sql
      .begin(async (tx) => {
        alone = await admitQueued(tx, h.runnerId, h.hostCapacity, [], { solo: 3 });
        throw undo;
      })
      .catch((e) => {
        if (e !== undo) throw e;
      });
    expect(alone).toEqual([{ kind: 'evict-needed', copyId: null, workspace: r.workspaceId }]);
    const { let: n, out } = await pass(sql, h);
    expect(n).toBe(1);
    expect(out[0].kind === 'admitted' && [out[0].copy.id, out[0].evicted.map((e) => e.id)]).toEqual([ids[0], [paused]]);
    const [gone] = await sql<{ state: string; endReason: string }[]>`select state, end_reason from runner_copies where id = ${paused}`;
    expect(gone).toEqual({ state: 'ended', endReason: 'evicted' });
    expect((await states(ids)).map((c) => c.state)).toEqual(['creating', 'queued']);
  });

  it('gives up a warm copy of another workspace for a full host, and lets nobody else past it', async () => {
    const h = host(2);
    const [full, later] = [await room('pro'), await room('pro')];
    await copy(full, h.runnerId, 'running');
    const warm = await copy(later, h.runnerId, 'warm'); // another build's warm copy: nobody waits for it
    await sql`update runner_copies set build_id = ${randomUUID()} where id = ${warm}`;
    const [first] = await queue(full, h.runnerId, 1);
    const [second] = await queue(later, h.runnerId, 1);
    const { out } = await pass(sql, h);
    expect(out.map((a) => a.kind === 'admitted' && [a.copy.id, a.evicted.map((e) => e.id)])).toEqual([[first, [warm]]]);
    expect((await states([second]))[0].state).toBe('queued');
  });
});
