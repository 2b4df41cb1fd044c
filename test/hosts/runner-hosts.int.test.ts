import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CopyView } from '../../services/contract/runner/runner-client.js';
import { loadConfig } from '../../services/core/config.js';
import { createStorage } from '../../services/core/storage.js';
import { settleLostHosts } from '../../services/data/runner-hosts.sql.js';
import { copyNotice } from '../../services/room/viewer-copies/copy-states.js';
import { canRunHosts, startFleet, type Fleet } from '../support/hosts/two-hosts.js';
import { demoBundle } from '../support/runner/demo-bundle.js';
import { seedContainerBuild, seedWorkspace, type Seeded } from '../support/runner/seed.js';
import { eventually } from '../support/runner/test-runner.js';
import { testEnv } from '../support/services.js';

// Several runner hosts on one machine (issue 31, parts 2 and 3; docs/runner.md "Several runner
// hosts"): two hosts, each a network namespace with its own podman service, storage and runner
// process, in a fleet of this file's own; the room's fleet client in the default namespace places
// viewers and reaches each session's host. Caps, queue and usage hold across the hosts through
// Postgres; a host that dies is settled once by the survivor and its viewers start again there.

const LOST_S = 10;
let f: Fleet;
let bundle: Buffer;
const sessions: string[] = [];

async function seeded(plan: 'solo' | 'pro'): Promise<Seeded> {
  const storage = createStorage(loadConfig(testEnv() as unknown as NodeJS.ProcessEnv));
  return seedContainerBuild(f.sql, storage, bundle, { workspaceId: await seedWorkspace(f.sql, plan) });
}

const enter = (b: Seeded, sessionId: string = randomUUID()) => {
  sessions.push(sessionId);
  return f.runners.client.enter(sessionId, { workspaceId: b.workspaceId, projectId: b.projectId, buildId: b.buildId });
};

const until = (sessionId: string, states: CopyView['state'][], timeoutMs = 60_000) =>
  eventually(
    async () => {
      const v = await f.runners.client.copy(sessionId).catch(() => null);
      return v && states.includes(v.state) ? v : null;
    },
    timeoutMs,
    200,
  );

/** The workspace's copies by host and state, not ended. */
async function spread(workspaceId: string) {
  return f.sql<{ runnerId: string; state: string; n: number }[]>`
    select runner_id, state, count(*)::int as n from runner_copies
    where workspace_id = ${workspaceId} and state <> 'ended' group by runner_id, state`;
}

describe.skipIf(!canRunHosts())('several runner hosts', () => {
  beforeAll(async () => {
    bundle = await demoBundle();
    f = await startFleet({
      hosts: [
        { name: 'a', slots: 3 },
        { name: 'b', slots: 3 },
      ],
      lostS: LOST_S,
    });
  }, 240_000);

  afterAll(async () => {
    await Promise.all(sessions.map((s) => f?.runners.client.leave(s).catch(() => {})));
    await f?.close();
  }, 120_000);

  it('spreads viewers over both hosts, each copy answering on its own host', async () => {
    const b = await seeded('pro');
    const mine = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    // One after another: placement sees each admission before the next (the most free slots).
    for (const s of mine) await enter(b, s);
    for (const s of mine) await until(s, ['running']);
    const hosts = await Promise.all(mine.map((s) => f.hostOf(s)));
    expect(new Set(hosts)).toEqual(new Set(f.hosts.map((h) => h.id)));
    expect(hosts.filter((h) => h === f.hosts[0].id)).toHaveLength(2);
    // Each copy answers through its own host's runner (the room's client picks it per session).
    for (const s of mine) {
      const { outcomes } = await f.runners.client.calls(s, [{ method: 'GET', path: '/' }]);
      expect(outcomes[0]).toMatchObject({ ok: true, status: 200 });
    }
    // And each host's engine holds exactly its two.
    for (const h of f.hosts) expect(await h.containers()).toHaveLength(2);
    for (const s of mine) await f.runners.client.leave(s);
    for (const h of f.hosts) await eventually(async () => (await h.containers()).length === 0, 30_000, 200);
  });

  it('holds the workspace cap across hosts under a burst, and lets the queue in on either host', async () => {
    const b = await seeded('solo'); // three container copies at once, five viewers in the room
    const burst = Array.from({ length: 5 }, () => randomUUID());
    try {
      await burstOf(b, burst);
    } finally {
      await Promise.all(burst.map((s) => f.runners.client.leave(s).catch(() => {})));
    }
  });

  async function burstOf(b: Seeded, burst: string[]) {
    const views = await Promise.all(burst.map((s) => enter(b, s)));
    // The cap is counted under the workspace's lock, whichever host admits: exactly 3 at once.
    const admitted = views.filter((v) => v.state !== 'queued');
    expect(admitted).toHaveLength(3);
    expect(
      views
        .filter((v) => v.state === 'queued')
        .map((v) => v.place)
        .sort(),
    ).toEqual([1, 2]);
    const running = await Promise.all(burst.filter((_, i) => views[i].state !== 'queued').map((s) => until(s, ['running'])));
    expect(running).toHaveLength(3);
    const live = (await spread(b.workspaceId)).filter((r) => r.state !== 'queued').reduce((n, r) => n + r.n, 0);
    expect(live).toBe(3);

    // One leaves: the head of the queue is let in, on whichever host has room; still 3.
    const leaver = burst.find((_, i) => views[i].state !== 'queued')!;
    await f.runners.client.leave(leaver);
    const head = burst[views.findIndex((v) => v.place === 1)];
    await until(head, ['running']);
    const after = await spread(b.workspaceId);
    expect(after.filter((r) => r.state !== 'queued').reduce((n, r) => n + r.n, 0)).toBe(3);
    expect(after.filter((r) => r.state === 'queued').reduce((n, r) => n + r.n, 0)).toBe(1);
  }

  it('moves the viewers of a host that dies to the other, ending its copies once at its last beat', async () => {
    const b = await seeded('pro');
    const [onA, onB] = [randomUUID(), randomUUID()];
    await enter(b, onA);
    await enter(b, onB);
    await until(onA, ['running']);
    await until(onB, ['running']);
    const [a, hostB] = f.hosts;
    // Equal free slots, then one fewer: the second viewer went to the other host.
    expect(new Set([await f.hostOf(onA), await f.hostOf(onB)])).toEqual(new Set([a.id, hostB.id]));
    const victim = (await f.hostOf(onA)) === a.id ? onA : onB;
    const [lostCopy] = await f.sql<{ id: string }[]>`select id from runner_copies where session_id = ${victim} and state <> 'ended'`;

    const killedAt = Date.now();
    await a.kill();
    // The room is told: the copy is gone because its machine was lost.
    const told = await until(victim, ['gone'], (LOST_S + 30) * 1000);
    expect(told.detail).toBe('host-lost');
    expect(copyNotice(told)).toMatchObject({ title: 'Moved to another machine', waiting: true });
    const [host] = await f.sql<{ seenAt: Date; lostAt: Date | null }[]>`select seen_at, lost_at from runner_hosts where id = ${a.id}`;
    expect(host.lostAt).not.toBeNull();
    expect(host.seenAt.getTime()).toBeLessThanOrEqual(killedAt + 1_000);

    // Usage stopped once, at the last beat; a second settling finds nothing to do.
    const stops = await f.sql<{ at: Date; detail: string }[]>`
      select at, detail from copy_events where copy_id = ${lostCopy.id} and kind in ('stop', 'fail')`;
    expect(stops).toHaveLength(1);
    expect(stops[0]).toMatchObject({ detail: 'host-lost' });
    expect(stops[0].at.getTime()).toBeLessThanOrEqual(killedAt + 1_000);
    expect(await settleLostHosts(f.sql, f.fleet, hostB.id, LOST_S)).toEqual([]);
    const [usage] = await f.sql<{ stops: number }[]>`
      select count(*)::int as stops from copy_events e join runner_copies c on c.id = e.copy_id
      where c.workspace_id = ${b.workspaceId} and e.kind = 'stop'`;
    expect(usage.stops).toBe(1);

    // The viewer's next request gets a fresh copy, on the host that lives.
    const again = await enter(b, victim);
    expect(again.copyId).not.toBe(lostCopy.id);
    await until(victim, ['running']);
    expect(await f.hostOf(victim)).toBe(hostB.id);
    const { outcomes } = await f.runners.client.calls(victim, [{ method: 'GET', path: '/' }]);
    expect(outcomes[0]).toMatchObject({ ok: true, status: 200 });
    for (const s of [onA, onB]) await f.runners.client.leave(s);
  }, 120_000);
});
