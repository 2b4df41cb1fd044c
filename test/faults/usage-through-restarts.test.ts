import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capChecks, type Group, seedRooms, type Viewer, viewer } from '../../bench/admission-kit.js';
import { waitFor } from './support/platform-processes.js';
import { answers, arrivalsOf, clockRecords, leftInEngines, notEnded } from './support/stub-burst.js';
import { startStubFleet, type StubFleet } from './support/stub-runners.js';
import { startThrowawayServices, type ThrowawayServices } from './support/throwaway-services.js';
import { describeUsage, usageAgainstEngine, usageProblems } from '../support/usage-against-engine.js';

// Issue 46, item 3: every copy-second billed once through a restart of Postgres, then of Redis,
// in the middle of a burst. Runner hosts of their own processes over the stub engine
// (stub-runners.ts), on a Postgres and a Redis of this file's own (throwaway-services.ts; the
// shared test services are never restarted), meet a crowd whose queue moves (viewers leave
// moments after every one of them has had an answer, and the queued are let in); once copies
// have come and gone, the service goes away and comes back. The burst finishes, every viewer
// leaves, the hosts' reconciles settle engine and records, and then the billed seconds are read
// against the stub engines' own start/stop clocks: every copy within 1 s, none billed twice, no
// engine second unbilled; nothing left in any engine; no cap exceeded at any moment.
//
// Postgres stops fast (every connection cut, writes in flight lost or their answers lost): the
// runner's writes (a start's, an end's, a kept engine record, each group-committed) fail meanwhile.
// The runner uses no Redis; its restart is here so that a burst meeting one is shown to bill the
// same (the roll-up, a worker's, reads the same copy_events: docs/runner.md "Usage and billing").
// What the Postgres restart found (a host killed by postgres.js and by a start's unhandled
// rejection, then a dead host's copy billed to a leave through the survivor) is in
// docs/decisions/usage-against-the-engine.md, "Usage through a restart of Postgres or Redis".

let services: ThrowawayServices;
const fleets: StubFleet[] = [];
beforeAll(async () => {
  services = await startThrowawayServices();
}, 120_000);
afterAll(async () => {
  await Promise.allSettled(fleets.map((f) => f.close()));
  await services?.stop();
});

/** Two hosts of 6 (12 slots) for 90 viewers let in: the queue moves in rounds for a while. */
const HOST_CAPACITY = 6;
const GROUPS: Group[] = [
  { plan: 'solo', workspaces: 2, projects: 1, viewers: 5 },
  { plan: 'pro', workspaces: 2, projects: 2, viewers: 10 },
  { plan: 'team', workspaces: 1, projects: 2, viewers: 20 },
];

/**
 * A burst on a fresh fleet of this file's services, `restart` called once `endedFirst` copies
 * have ended; every check, and the figures printed. `felt`: viewers' calls failed meanwhile (the
 * outage reached the runners), and were asked again.
 */
async function burstThrough(name: string, restart: () => Promise<void>, opts: { felt: boolean }, endedFirst = 20) {
  const started = performance.now();
  const f = await startStubFleet({
    hosts: 2,
    hostCapacity: HOST_CAPACITY,
    lostS: 60,
    startDelayMs: 30,
    services,
    reconcileS: 2,
    usageReconcileS: 5,
  });
  fleets.push(f);
  const hostIds = f.hosts.map((h) => h.id);
  const rooms = await seedRooms(f.sql, GROUPS);
  const workspaceIds = [...new Set(rooms.map((r) => r.room.workspaceId))];
  const arrivals = arrivalsOf(rooms);
  const answered = answers(arrivals.length);
  const t0 = performance.now();
  const burst = Promise.all(arrivals.map((room) => viewer(f.client, room, t0, answered.everyone, 1_500, answered.one, 150_000)));

  await waitFor(
    `${endedFirst} copies to have come and gone`,
    async () => {
      const [r] = await f.sql<{ n: number }[]>`
        select count(*)::int as n from runner_copies where workspace_id = any(${workspaceIds}) and state = 'ended'`;
      return r.n >= endedFirst;
    },
    90_000,
    50,
  );
  const down = performance.now();
  await restart();
  const upMs = performance.now() - down;
  const viewers: Viewer[] = await burst;
  const doneMs = performance.now() - t0;

  // Every viewer has left: the records end, the engines empty, the reconciles settle.
  const live = await notEnded(f.sql, workspaceIds, 20_000);
  const engines = await leftInEngines(f, 20_000);
  // A usage pass (every 5 s here) after the last end: what it fixes is in what is read next.
  const settledFrom = Date.now();
  await waitFor('a usage reconcile pass on every host after the burst', async () => Date.now() - settledFrom > 6_000, 10_000, 500);
  const usage = await usageAgainstEngine(f.sql, { workspaceIds, engine: engines.flatMap((e) => clockRecords(e.clock)) });
  // And as the runners' own reconciles judge it: by the engine's record each host kept on the
  // copy's row as it removed the unit (a keeping lost to the outage leaves a copy unjudged).
  const kept = await usageAgainstEngine(f.sql, { workspaceIds });
  const checks = await capChecks(f.sql, workspaceIds, hostIds, HOST_CAPACITY);
  const [admitted] = await f.sql<{ n: number }[]>`
    select count(*)::int as n from runner_copies where workspace_id = any(${workspaceIds}) and admitted_at is not null`;
  const count = (o: Viewer['outcome']) => viewers.filter((v) => v.outcome === o).length;
  console.info(
    `${name}: ${viewers.length} viewers, ${count('served')} served, ${count('full-room')} refused, ` +
      `${viewers.filter((v) => v.outcome !== 'served' && v.outcome !== 'full-room').length} other, ${viewers.reduce((n, v) => n + v.reloads, 0)} calls failed and asked again; ` +
      `${admitted.n} copies admitted, engine starts ${engines.map((e) => e.starts).join('/')}; host peak ${checks.hostPeak}/${HOST_CAPACITY}; ` +
      `restart took ${Math.round(upMs)} ms; burst done in ${Math.round(doneMs)} ms; whole case ${Math.round(performance.now() - started)} ms`,
  );
  console.info(describeUsage(usage).join('\n'));
  console.info(`by the records kept: ${describeUsage(kept).slice(0, 3).join('; ')}`);
  const others = viewers.filter((v) => v.outcome !== 'served' && v.outcome !== 'full-room');
  if (others.length) console.info(others.map((v) => `  ${v.outcome}: ${v.detail}`).join('\n'));

  // Billed exactly: every copy within 1 s of its engine's clock, nothing twice, nothing unbilled.
  expect(usageProblems(usage)).toEqual([]);
  expect(usageProblems(kept)).toEqual([]);
  // Nothing left: no record live, no copy in any engine, no copy started twice.
  expect(live).toEqual([]);
  expect(engines.map((e) => [e.id, e.holding, e.startedTwice])).toEqual(hostIds.map((id) => [id, 0, []]));
  // Never over a cap at any moment.
  expect(checks.hostOver).toBe(0);
  expect(checks.workspacesOver).toEqual([]);
  expect(checks.roomsOver).toEqual([]);
  // The hosts lived through it (none died and none was taken for lost), and the viewers were served.
  for (const h of f.hosts) expect([h.id, h.process.child.exitCode, h.process.child.signalCode]).toEqual([h.id, null, null]);
  expect(await f.sql`select id from runner_hosts where fleet = ${f.fleet} and lost_at is not null`).toEqual([]);
  expect(count('served')).toBeGreaterThan(endedFirst);
  if (opts.felt) expect(viewers.reduce((n, v) => n + v.reloads, 0)).toBeGreaterThan(0);
}

describe('usage against the engine through a restart mid-burst', () => {
  it('Postgres restarted (fast stop, every connection cut): every copy-second billed once', { timeout: 300_000 }, async () => {
    await burstThrough('postgres restarted', () => services.restartPostgres({ downMs: 1_000 }), { felt: true });
  });

  it('Redis restarted: every copy-second billed once', { timeout: 300_000 }, async () => {
    await burstThrough('redis restarted', () => services.restartRedis({ downMs: 1_000 }), { felt: false });
  });
});
