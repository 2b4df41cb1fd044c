import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSql, type Sql } from '../core/infra/db.js';
import { testEnv } from '../../test/support/services.js';
import { containerUsage } from './container-usage.sql.js';
import { insertCopy, transition } from './copies.sql.js';
import { placeOn } from '@demo-rooms/contract/runner';
import { beat, fleetPicture, hostOfSession, settleLostHosts } from './runner-hosts.sql.js';
import { fleetSources } from './runner-fleet.js';

// The fleet's rows alone (the two-host test in test/hosts/ runs them with real hosts): placement's
// order read from the fleet's picture, and a lost host settled once, at its last beat. Each test has its own fleet and hosts.

let sql: Sql;
beforeAll(() => {
  sql = createSql(testEnv().DATABASE_URL, { max: 2 });
});
afterAll(async () => {
  await sql.end({ timeout: 2 });
});

async function fleetOf(slots: Record<string, number>) {
  const fleet = `f${randomBytes(4).toString('hex')}`;
  const ids: Record<string, string> = {};
  for (const [name, n] of Object.entries(slots)) {
    ids[name] = `${fleet}-${name}`;
    await beat(sql, { id: ids[name], fleet, apiUrl: `http://127.0.0.1:1/${name}`, copyOrigin: null, slots: n });
  }
  const [w] = await sql<{ id: string }[]>`insert into workspaces (name, kind, plan) values ('hosts', 'team', 'pro') returning id`;
  const [p] = await sql<{ id: string }[]>`
    insert into projects (workspace_id, slug, name) values (${w.id}, ${`h-${randomUUID().slice(0, 12)}`}, 'H') returning id`;
  return { fleet, ids, workspaceId: w.id, projectId: p.id, buildId: randomUUID() };
}

type F = Awaited<ReturnType<typeof fleetOf>>;

/** A copy on `runnerId` in `state`, as admission and the starter leave it (with its start event when running). */
async function copyOn(f: F, runnerId: string, state: 'running' | 'warm' | 'queued', sessionId: string | null = randomUUID()) {
  const row = await insertCopy(
    sql,
    {
      id: randomUUID(),
      runnerId,
      workspaceId: f.workspaceId,
      projectId: f.projectId,
      buildId: f.buildId,
      sessionId,
      origin: sessionId ? 'viewer' : 'warm',
      state: state === 'queued' ? 'queued' : 'creating',
    },
    state === 'queued' ? 'queued' : undefined,
  );
  if (state === 'queued') return row;
  await transition(sql, row.id, ['creating'], 'starting', { now: ['startedAt'], event: 'start' });
  return (await transition(sql, row.id, ['starting'], state, { event: 'ready' }))!;
}

describe('placement', () => {
  it("sends a session to its own copy's host, else a warm copy's host, else a host with room", async () => {
    const f = await fleetOf({ a: 3, b: 8 });
    // As the fleet client places: a fresh picture each time (fleet-client.ts reads one a second).
    const place = async (sessionId: string) => placeOn(await fleetPicture(sql, f.fleet, 20), f, await hostOfSession(sql, sessionId))?.id;
    await copyOn(f, f.ids.a, 'running');
    // a has 2 free slots, under half of b's 8: whichever host is the workspace's own, b is chosen.
    expect(await place(randomUUID())).toBe(f.ids.b);
    // A warm copy of the build on a wins over free slots.
    await copyOn(f, f.ids.a, 'warm', null);
    expect(await place(randomUUID())).toBe(f.ids.a);
    // The session's own copy wins over everything.
    const mine = randomUUID();
    await copyOn(f, f.ids.b, 'running', mine);
    expect(await place(mine)).toBe(f.ids.b);
    // A host that stopped beating is never chosen.
    await sql`update runner_hosts set seen_at = now() - interval '1 minute' where id = ${f.ids.b}`;
    expect(await place(mine)).toBe(f.ids.a);
  });
});

describe("a crowd's sessions", () => {
  it('are looked up together: each told its own host (the live copy over an ended one), a new session none', async () => {
    const f = await fleetOf({ a: 4, b: 4 });
    const [onA, onB, moved] = [randomUUID(), randomUUID(), randomUUID()];
    await copyOn(f, f.ids.a, 'running', onA);
    await copyOn(f, f.ids.b, 'queued', onB);
    const old = await copyOn(f, f.ids.a, 'running', moved);
    await transition(sql, old.id, ['running'], 'ended', { set: { endReason: 'left' } });
    await copyOn(f, f.ids.b, 'running', moved);
    let reads = 0;
    const counted = new Proxy(sql, {
      apply(target, self, args) {
        if (Array.isArray(args[0]) && (args[0] as string[]).join('').includes('distinct on (session_id)')) reads++;
        return Reflect.apply(target, self, args);
      },
    });
    const { hostOfSession: hostOf } = fleetSources(counted, { fleet: f.fleet, lostS: 20 });
    const asked = Array.from({ length: 60 }, (_, i) => [onA, onB, moved, randomUUID()][i % 4]);
    const told = await Promise.all(asked.map((s) => hostOf(s)));
    const want = { [onA]: f.ids.a, [onB]: f.ids.b, [moved]: f.ids.b };
    expect(told).toEqual(asked.map((s) => want[s]));
    // The first read went alone; everyone who asked while it was out went in one more.
    expect(reads).toBe(2);
  });
});

describe('a lost host', () => {
  it('has its copies ended once, with one stop each at its last beat, and its queue moved to the survivor', async () => {
    const f = await fleetOf({ a: 4, b: 4 });
    const running = await copyOn(f, f.ids.a, 'running');
    const queued = await copyOn(f, f.ids.a, 'queued');
    const onB = await copyOn(f, f.ids.b, 'running');
    const lastBeat = new Date(Date.now() - 60_000);
    // Its copy started before the last beat: usage runs from the start to the beat, not to now.
    await sql`update copy_events set at = ${new Date(lastBeat.getTime() - 30_000)} where copy_id = ${running.id}`;
    await sql`update runner_hosts set seen_at = ${lastBeat} where id = ${f.ids.a}`;

    const [settled] = await settleLostHosts(sql, f.fleet, f.ids.b, 20);
    expect(settled).toMatchObject({ id: f.ids.a, ended: 1, movedQueue: 1 });
    expect(await settleLostHosts(sql, f.fleet, f.ids.b, 20)).toEqual([]);

    const [row] = await sql<{ state: string; endReason: string }[]>`select state, end_reason from runner_copies where id = ${running.id}`;
    expect(row).toEqual({ state: 'ended', endReason: 'host-lost' });
    const stops = await sql<{ at: Date }[]>`select at from copy_events where copy_id = ${running.id} and kind = 'stop'`;
    expect(stops.map((s) => s.at.getTime())).toEqual([lastBeat.getTime()]);
    const [q] = await sql<{ runnerId: string; state: string }[]>`select runner_id, state from runner_copies where id = ${queued.id}`;
    expect(q).toEqual({ runnerId: f.ids.b, state: 'queued' });
    const [b] = await sql<{ state: string }[]>`select state from runner_copies where id = ${onB.id}`;
    expect(b.state).toBe('running');
    // Usage: the lost copy counts 30 s, once.
    // (The copy on b adds the seconds it has run; stopped at the settling instead, it would be 90 s.)
    const usage = await containerUsage(sql, f.workspaceId);
    expect(usage.containerHours).toBeGreaterThan(20 / 3600);
    expect(usage.containerHours).toBeLessThan(45 / 3600);

    // The host beats again: it is live and no longer marked.
    await beat(sql, { id: f.ids.a, fleet: f.fleet, apiUrl: 'http://127.0.0.1:1/a', copyOrigin: null, slots: 4 });
    const [h] = await sql<{ lostAt: Date | null }[]>`select lost_at from runner_hosts where id = ${f.ids.a}`;
    expect(h.lostAt).toBeNull();
  });
});
