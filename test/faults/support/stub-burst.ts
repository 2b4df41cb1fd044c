import { setTimeout as sleep } from 'node:timers/promises';
import type { Room } from '../../../bench/admission-kit.js';
import type { Sql } from '../../../services/core/infra/db.js';
import type { EngineReport } from '../../support/runner/stub-runner-process.js';
import type { EngineRecord } from '../../support/usage-against-engine.js';
import type { StubFleet } from './stub-runners.js';

// What the fault tests of a burst on a stub fleet (stub-runners.ts) share: the arrivals, a count
// of first answers, and what is left once every viewer has gone (records, engines, the engines'
// clocks as the usage comparison takes them).

/** One viewer of each room in turn, as a burst from many links. */
export function arrivalsOf(rooms: { room: Room; viewers: number }[]): Room[] {
  const most = Math.max(...rooms.map((r) => r.viewers));
  const out: Room[] = [];
  for (let i = 0; i < most; i++) for (const r of rooms) if (i < r.viewers) out.push(r.room);
  return out;
}

/** Resolves once `n` viewers have had a first answer. */
export function answers(n: number) {
  let got = 0;
  let all!: () => void;
  const everyone = new Promise<void>((resolve) => (all = resolve));
  return {
    everyone,
    one: () => {
      if (++got === n) all();
    },
    get count() {
      return got;
    },
  };
}

/**
 * Copies of these workspaces not ended; every viewer has left, so none should be (the last leaves
 * may be in flight, and a host's reconcile may still be closing one: waits up to `waitMs`).
 */
export async function notEnded(sql: Sql, workspaceIds: string[], waitMs = 5_000): Promise<{ state: string; runnerId: string }[]> {
  let rows: { state: string; runnerId: string }[] = [];
  for (const until = Date.now() + waitMs; ; ) {
    rows = await sql`select state, runner_id from runner_copies where workspace_id = any(${workspaceIds}) and state <> 'ended'`;
    if (!rows.length || Date.now() > until) break;
    await sleep(100);
  }
  return rows;
}

/** A stub engine's clock, as the usage comparison takes it. */
export function clockRecords(clock: EngineReport['clock']): EngineRecord[] {
  const at = (s: string | null) => (s ? new Date(s) : null);
  return clock.map((r) => ({ copyId: r.copyId, startedAt: at(r.startedAt), finishedAt: at(r.finishedAt) }));
}

/** What the live hosts' engines hold once every viewer has left (removals may be in flight: waits up to `waitMs`). */
export async function leftInEngines(f: StubFleet, waitMs = 5_000): Promise<({ id: string } & EngineReport)[]> {
  let reports = await f.engines();
  for (const until = Date.now() + waitMs; reports.some((r) => r.report.holding > 0) && Date.now() < until; ) {
    await sleep(100);
    reports = await f.engines();
  }
  return reports.map((r) => ({ id: r.id, ...r.report }));
}
