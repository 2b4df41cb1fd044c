import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { capChecks, type Group, queueOvertakes, type Room, seedRooms, type Viewer, viewer } from '../../bench/admission-kit.js';
import type { CopyView, RunnerClient } from '@demo-rooms/contract/runner';
import { planOf } from '../../services/core/rules/plans.js';
import { waitFor } from './support/platform-processes.js';
import { startStubFleet, type StubFleet } from './support/stub-runners.js';
import { describeUsage, usageAgainstEngine, usageProblems } from '../support/usage-against-engine.js';
import { answers, arrivalsOf, clockRecords, leftInEngines, notEnded } from './support/stub-burst.js';

// Issue 43: a crowd at the door, met by several runner hosts at once, each the real runner (its
// API, admission, queue, starter and loops) in a process of its own over the stub engine
// (test/support/runner/stub-runner-process.ts), registered in one fleet; viewers enter through
// the room's fleet client, so placement spreads them and every host admits at the same time. The
// caps are checked from the records afterwards (bench/admission-kit.ts capChecks): at no moment
// did a host, a workspace or a room hold more than its cap. Then a host is killed mid-burst: the
// survivors settle it and its viewers, entering again as the room's shell does, land on them.

const fleets: StubFleet[] = [];
afterAll(async () => {
  await Promise.allSettled(fleets.map((f) => f.close()));
});

async function fleetOf(o: Parameters<typeof startStubFleet>[0]): Promise<StubFleet> {
  const f = await startStubFleet(o);
  fleets.push(f);
  return f;
}

/**
 * Rooms whose viewers were not let in (or queued) exactly up to the room's cap, the rest refused
 * as the room full. Nobody leaves before every viewer has had an answer, so the count is exact.
 */
function roomsWrong(rooms: { room: Room; viewers: number }[], outcomes: { room: Room; outcome: string }[]): string[] {
  const wrong: string[] = [];
  for (const { room, viewers: asked } of rooms) {
    const mine = outcomes.filter((v) => v.room === room);
    const cap = planOf(room.plan).concurrentViewers;
    const served = mine.filter((v) => v.outcome === 'served').length;
    const refused = mine.filter((v) => v.outcome === 'full-room').length;
    if (served !== Math.min(asked, cap) || refused !== Math.max(0, asked - cap))
      wrong.push(`${room.plan} room ${room.projectId}: ${served} served, ${refused} refused of ${asked} (cap ${cap})`);
  }
  return wrong;
}

describe('a burst of viewers on runner hosts in processes of their own', () => {
  it('caps exact under a concurrent burst, several runner PROCESSES, not one', { timeout: 180_000 }, async () => {
    // Three hosts of 12 slots (36) for the 132 copies the plans would allow at once: the host cap
    // binds, every workspace asks for more copies than its plan's cap (the rest queue), and every
    // room is asked by more viewers than its cap (the rest are refused). 300 viewers, 220 let in.
    const hostCapacity = 12;
    const groups: Group[] = [
      { plan: 'solo', workspaces: 4, projects: 1, viewers: 8 }, // 5 at once a room, 3 copies
      { plan: 'pro', workspaces: 3, projects: 2, viewers: 14 }, // 10 and 10
      { plan: 'team', workspaces: 2, projects: 2, viewers: 26 }, // 20 and 25
      { plan: 'agency', workspaces: 1, projects: 2, viewers: 40 }, // 30 and 40
    ];
    const started = performance.now();
    const f = await fleetOf({ hosts: 3, hostCapacity, lostS: 600, startDelayMs: 30 });
    const upMs = performance.now() - started;
    const hostIds = f.hosts.map((h) => h.id);
    const registered = await f.sql<{ id: string }[]>`select id from runner_hosts where fleet = ${f.fleet} order by id`;
    expect(registered.map((h) => h.id)).toEqual([...hostIds].sort());
    expect(new Set(f.hosts.map((h) => h.process.child.pid)).size).toBe(3);

    const rooms = await seedRooms(f.sql, groups);
    const workspaceIds = [...new Set(rooms.map((r) => r.room.workspaceId))];
    const arrivals = arrivalsOf(rooms);
    const answered = answers(arrivals.length);
    const t0 = performance.now();
    const seedMs = t0 - started - upMs;
    // Each stays until every viewer has had a first answer and 300 ms more, then leaves: the queue moves.
    const viewers: Viewer[] = await Promise.all(
      arrivals.map((room) => viewer(f.client, room, t0, answered.everyone, 300, answered.one, 120_000)),
    );
    const doneMs = performance.now() - t0;

    const checks = await capChecks(f.sql, workspaceIds, hostIds, hostCapacity);
    const overtakes = await queueOvertakes(f.sql, workspaceIds);
    const perHost = await f.sql<{ runnerId: string; admitted: number }[]>`
      select runner_id, count(*)::int as admitted from runner_copies
      where workspace_id = any(${workspaceIds}) and admitted_at is not null group by runner_id order by runner_id`;
    const [records] = await f.sql<{ admitted: number }[]>`
      select count(*)::int as admitted from runner_copies where workspace_id = any(${workspaceIds}) and admitted_at is not null`;
    const live = await notEnded(f.sql, workspaceIds);
    const engines = await leftInEngines(f);
    const count = (o: Viewer['outcome']) => viewers.filter((v) => v.outcome === o).length;
    console.info(
      `burst of ${viewers.length} on 3 runner processes: ${count('served')} served, ${count('full-room')} refused, ` +
        `${viewers.filter((v) => v.first === 'queued').length} queued first, ${viewers.reduce((n, v) => n + v.reloads, 0)} reloads; ` +
        `admitted per host ${perHost.map((h) => h.admitted).join('/')}; host peak ${checks.hostPeak}/${hostCapacity}; ` +
        `engine starts ${engines.map((e) => e.starts).join('/')} for ${records.admitted} admitted copies; ` +
        `hosts up in ${Math.round(upMs)} ms, seeded in ${Math.round(seedMs)} ms, burst done in ${Math.round(doneMs)} ms`,
    );

    // Every host admitted viewers of the same burst, and the caps bound.
    expect(perHost.map((h) => h.runnerId)).toEqual([...hostIds].sort());
    for (const h of perHost) expect(h.admitted).toBeGreaterThan(0);
    expect(viewers.some((v) => v.first === 'queued')).toBe(true);
    // Never over a cap at any moment, queued viewers let in first come first served.
    expect(checks.hostOver).toBe(0);
    expect(checks.hostPeak).toBe(hostCapacity);
    expect(checks.workspacesOver).toEqual([]);
    expect(checks.roomsOver).toEqual([]);
    expect(overtakes).toBe(0);
    // Each room let in or queued exactly its cap and refused the rest; everyone let in ran.
    expect(viewers.filter((v) => v.outcome !== 'served' && v.outcome !== 'full-room').map((v) => `${v.outcome}: ${v.detail}`)).toEqual([]);
    expect(roomsWrong(rooms, viewers)).toEqual([]);
    for (const v of viewers) if (v.outcome === 'served') expect(v.runningMs).not.toBeNull();
    // Nothing left: no record live, no copy in any engine, and one engine start per admitted copy.
    expect(live).toEqual([]);
    expect(engines.map((e) => [e.id, e.holding, e.startedTwice])).toEqual(hostIds.map((id) => [id, 0, []]));
    expect(engines.reduce((n, e) => n + e.starts, 0)).toBe(records.admitted);
  });

  it('a host lost mid-burst: its viewers re-placed, nothing over a cap', { timeout: 180_000 }, async () => {
    // Three hosts of 10 (30 slots) for 121 viewers, 95 let in. A host stops beating for
    // RUNNER_HOST_LOST_S (the config's minimum, 10 s: the beat is every 5 s) and is lost.
    const hostCapacity = 10;
    const lostS = 10;
    const groups: Group[] = [
      { plan: 'solo', workspaces: 3, projects: 1, viewers: 7 },
      { plan: 'pro', workspaces: 2, projects: 2, viewers: 13 },
      { plan: 'team', workspaces: 1, projects: 2, viewers: 24 },
    ];
    const f = await fleetOf({ hosts: 3, hostCapacity, lostS, startDelayMs: 30 });
    const hostIds = f.hosts.map((h) => h.id);
    const rooms = await seedRooms(f.sql, groups);
    const workspaceIds = [...new Set(rooms.map((r) => r.room.workspaceId))];
    const arrivals = arrivalsOf(rooms);
    const answered = answers(arrivals.length);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // Past this, or once the test has failed, the viewers still waiting leave.
    const patience = { until: performance.now() + 100_000 };
    const shells = arrivals.map((room) => newShell(room));
    const running = Promise.all(shells.map((s) => shell(f.client, s, released, 300, patience, answered.one)));

    try {
      // Once some copies run on a host, that host's machine dies.
      const victim = await waitFor(
        'copies running on a host',
        async () => {
          const [busiest] = await f.sql<{ runnerId: string; n: number }[]>`
            select runner_id, count(*)::int as n from runner_copies
            where workspace_id = any(${workspaceIds}) and state = 'running' group by runner_id order by n desc limit 1`;
          return busiest && busiest.n >= 4 ? f.hosts.find((h) => h.id === busiest.runnerId)! : null;
        },
        60_000,
        50,
      );
      // Its engine's clock as it dies: what it ran until the kill (the stub engine dies with it).
      const victimClock = (await victim.engine()).clock;
      await victim.kill();
      const killedAt = new Date();
      const answeredAtKill = answered.count;
      const onVictim = await f.sql<{ state: string; n: number }[]>`
        select state, count(*)::int as n from runner_copies where runner_id = ${victim.id} and state <> 'ended' group by state`;

      // A survivor settles it: its copies end host-lost, its queue moves.
      await waitFor(
        `${victim.id} to be settled as lost`,
        async () => (await f.sql`select 1 from runner_hosts where id = ${victim.id} and lost_at is not null`).length > 0,
        (lostS + 30) * 1000,
        200,
      );
      // Everyone stays until all have had an answer and every viewer of a lost copy has entered again.
      await waitFor('every viewer to have had an answer', async () => answered.count === shells.length, 60_000, 200);
      await waitFor(
        "the lost copies' viewers to enter again",
        async () => {
          const lost = await f.sql<{ id: string; sessionId: string }[]>`
            select id, session_id from runner_copies where runner_id = ${victim.id} and end_reason = 'host-lost' and session_id is not null`;
          return lost.every((c) => {
            const s = shells.find((x) => x.sessionId === c.sessionId);
            return !s || s.done || (s.current !== null && s.current.copyId !== c.id);
          });
        },
        60_000,
        200,
      );
      release();
      await running;

      const survivors = hostIds.filter((id) => id !== victim.id);
      const checks = await capChecks(f.sql, workspaceIds, hostIds, hostCapacity);
      const lostCopies = await f.sql<{ sessionId: string | null }[]>`
        select session_id from runner_copies where runner_id = ${victim.id} and end_reason = 'host-lost'`;
      const victims = new Set(lostCopies.map((c) => c.sessionId).filter((s): s is string => s !== null));
      const finals = await f.sql<{ id: string; runnerId: string }[]>`
        select id, runner_id from runner_copies where id = any(${shells.map((s) => s.servedCopyId).filter((c): c is string => c !== null)})`;
      const onDeadHost = await f.sql<{ state: string }[]>`
        select state from runner_copies where runner_id = ${victim.id} and state <> 'ended'`;
      // A survivor that missed its own beats for RUNNER_HOST_LOST_S on a loaded machine is lost too (told, not asserted).
      const othersLost = await f.sql<{ id: string }[]>`
        select id from runner_hosts where fleet = ${f.fleet} and lost_at is not null and id <> ${victim.id}`;
      const replaced = shells.filter(
        (s) => victims.has(s.sessionId) && survivors.includes(finals.find((c) => c.id === s.servedCopyId)?.runnerId ?? ''),
      );
      const overtakes = await queueOvertakes(f.sql, workspaceIds);
      const live = await notEnded(f.sql, workspaceIds);
      const engines = await leftInEngines(f);
      const count = (o: Shell['outcome']) => shells.filter((s) => s.outcome === o).length;
      console.info(
        `host ${victim.id} killed with ${onVictim.map((r) => `${r.n} ${r.state}`).join(', ')} (${answeredAtKill}/${shells.length} viewers answered); ` +
          `${lostCopies.length} copies ended host-lost, ${victims.size} viewers' copies lost, ${replaced.length} of them served again on a survivor; ` +
          `${count('served')} served, ${count('full-room')} refused, ${shells.reduce((n, s) => n + s.errors, 0)} calls failed and asked again; ` +
          `host peak ${checks.hostPeak}/${hostCapacity}; queue overtakes ${overtakes}; other hosts marked lost: ${othersLost.length}`,
      );

      // Usage against the engines' own clocks (issue 46): the survivors' runs as they kept them,
      // the dead host's until its last beat. No engine survives to say when its units stopped
      // (the stub dies with its host), so a lost host's copies are billed up to its last beat:
      // the most anyone knows they ran. The beat comes every second, but a loaded machine delays
      // it by seconds, so the bound is the last beat itself, never past the kill.
      const [{ seenAt: lastBeat }] = await f.sql<{ seenAt: Date }[]>`select seen_at from runner_hosts where id = ${victim.id}`;
      expect(lastBeat.getTime()).toBeLessThanOrEqual(killedAt.getTime());
      const records = [
        ...engines.flatMap((e) => clockRecords(e.clock)),
        ...clockRecords(victimClock).map((r) => ({
          ...r,
          finishedAt: r.finishedAt ?? (r.startedAt ? new Date(Math.max(r.startedAt.getTime(), lastBeat.getTime())) : null),
        })),
      ];
      const usage = await usageAgainstEngine(f.sql, { workspaceIds, engine: records });
      console.info(describeUsage(usage).join('\n'));

      // Every copy within 1 s of that, none twice; no second of a survivor's engine unbilled.
      expect(usageProblems(usage)).toEqual([]);

      // The kill met copies, and the survivors settled them.
      expect(lostCopies.length).toBeGreaterThan(0);
      expect(victims.size).toBeGreaterThan(0);
      // Never over a cap at any moment, on any host, the dead one included.
      expect(checks.hostOver).toBe(0);
      expect(checks.workspacesOver).toEqual([]);
      expect(checks.roomsOver).toEqual([]);
      // Every viewer served or refused as the room's cap says; a lost copy was only ever told as lost.
      expect(shells.filter((s) => s.outcome !== 'served' && s.outcome !== 'full-room').map((s) => `${s.outcome}: ${s.detail}`)).toEqual([]);
      expect(roomsWrong(rooms, shells)).toEqual([]);
      expect(shells.flatMap((s) => s.gone).filter((d) => d !== 'host-lost')).toEqual([]);
      // The viewers of the dead host ran again on a survivor; nobody's copy is left on it.
      expect(replaced.length).toBe(shells.filter((x) => victims.has(x.sessionId) && x.outcome === 'served').length);
      expect(replaced.length).toBeGreaterThan(0);
      expect(finals.filter((c) => c.runnerId === victim.id)).toEqual([]);
      expect(onDeadHost).toEqual([]);
      // Nothing left in the records or in the survivors' engines, and no copy started twice.
      expect(live).toEqual([]);
      expect(engines.map((e) => [e.id, e.holding, e.startedTwice])).toEqual(survivors.map((id) => [id, 0, []]));
    } finally {
      patience.until = 0;
      release();
      await running;
    }
  });
});

/** A viewer as the room's shell drives them through a host's loss; what became of them. */
interface Shell {
  sessionId: string;
  room: Room;
  /** The latest answer about their copy (null before the first). */
  current: CopyView | null;
  /** The copy that ran when they left. */
  servedCopyId: string | null;
  /** Why each copy of theirs went away while they stayed (`gone` details). */
  gone: string[];
  /** Calls that failed (a dead host, a timeout) and were asked again. */
  errors: number;
  outcome: 'served' | 'full-room' | 'full-plan' | 'failed' | 'waited-out';
  detail?: string;
  done: boolean;
}

function newShell(room: Room): Shell {
  return {
    sessionId: randomUUID(),
    room,
    current: null,
    servedCopyId: null,
    gone: [],
    errors: 0,
    outcome: 'failed',
    done: false,
  };
}

/**
 * The room's shell and its copy gateway, for one viewer: enter (10 s wait for a start to settle),
 * again 2 s later while queued, 500 ms later while starting; once running, long-poll the copy (as
 * the room's panel does) until `released` and `dwellMs` more, then leave. A copy gone (its host
 * lost) is entered again, which places a fresh copy on a live host; a call that fails is asked
 * again after a moment. A viewer not let in by `patience.until` leaves and is counted as waited out.
 */
async function shell(
  client: RunnerClient,
  s: Shell,
  released: Promise<void>,
  dwellMs: number,
  patience: { until: number },
  onFirst: () => void,
) {
  const body = { workspaceId: s.room.workspaceId, projectId: s.room.projectId, buildId: s.room.buildId };
  let releasedAt = Number.POSITIVE_INFINITY;
  void released.then(() => (releasedAt = performance.now()));
  // Stays `dwellMs` after the release, and after the copy first ran.
  let ranAt = 0;
  const leaveAt = () => Math.max(releasedAt, ranAt) + dwellMs;
  const answer = (v: CopyView) => {
    if (!s.current) onFirst();
    s.current = v;
  };
  try {
    for (;;) {
      // Entering, until the copy runs.
      let view: CopyView | null = null;
      while (!view) {
        if (performance.now() > patience.until) {
          await client.leave(s.sessionId).catch(() => {});
          s.outcome = 'waited-out';
          return;
        }
        let v: CopyView;
        try {
          v = await client.enter(s.sessionId, body, 10_000);
        } catch (err) {
          s.errors++;
          s.detail = (err as Error).message;
          await sleep(1_000);
          continue;
        }
        answer(v);
        if (v.state === 'running') {
          view = v;
          ranAt = performance.now();
        } else if (v.state === 'full') {
          s.outcome = v.detail === 'plan' ? 'full-plan' : 'full-room';
          return;
        } else if (v.state === 'gone') {
          s.gone.push(v.detail ?? '');
          await sleep(500);
        } else if (v.state === 'queued' || v.state === 'starting') await sleep(v.state === 'queued' ? 2_000 : 500);
        else {
          s.detail = `${v.state}${v.detail ? `: ${v.detail}` : ''}`;
          return;
        }
      }
      // Staying, the copy long-polled, until it is time to leave or the copy goes.
      while (view && performance.now() < leaveAt()) {
        let v: CopyView;
        try {
          v = await client.copy(s.sessionId, {
            seen: view.version,
            waitMs: Math.round(Math.min(2_000, Math.max(0, leaveAt() - performance.now()))),
          });
        } catch (err) {
          s.errors++;
          s.detail = (err as Error).message;
          await sleep(500);
          continue;
        }
        answer(v);
        if (v.state === 'running') view = v;
        else if (v.state === 'gone') {
          s.gone.push(v.detail ?? '');
          view = null;
        } else {
          s.detail = `while running: ${v.state}${v.detail ? `: ${v.detail}` : ''}`;
          return;
        }
      }
      if (!view) continue;
      s.servedCopyId = view.copyId;
      // Leaving is asked again when the call fails, as the room's release is (up to five times).
      for (let tries = 1; ; tries++) {
        try {
          await client.leave(s.sessionId);
          s.outcome = 'served';
          s.detail = undefined;
          return;
        } catch (err) {
          if (tries === 5) {
            s.detail = `could not leave: ${(err as Error).message}`;
            return;
          }
          await sleep(1_000);
        }
      }
    }
  } finally {
    s.done = true;
  }
}
