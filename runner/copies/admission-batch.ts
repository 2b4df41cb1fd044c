import type { Db, Sql } from '../../services/core/infra/db.js';
import { allowance, PlanName, planOf } from '../../services/core/rules/plans.js';
import { planNamesOf } from '../../services/data/workspaces.sql.js';
import type { CopyRow } from '../../services/data/copies.sql.js';
import { admitArrivals, admitQueued, type ArrivalAsk, copiesByIds } from '../../services/data/copy-admission-batch.sql.js';
import type { HostScope } from '../service/runner-context.js';
import type { Admission } from './copy-admission.js';
import { admitQueuedEvicting } from './queue-evictions.js';

// A batch of arrivals decided by one statement (admit_arrivals, migrations/00035), and a pass over
// the queue by another (admit_queued, migrations/00042): the locks, the counts and every decision
// inside Postgres, the locks held for milliseconds, never across a round trip. Neither holds a
// lock while a copy starts (its starter runs after the commit). In a pass, giving up a warm or
// paused copy for a viewer is the one step that goes back to the database in the middle, copy by
// copy: from such a workspace on, the pass goes on in queue-evictions.ts.

export interface Ask {
  sessionId: string;
  workspaceId: string;
  projectId: string;
  buildId: string;
  /** The room's own viewers at once, when it has one; else the plan's. */
  roomViewerCap?: number;
  /** The session's latest copy when the ask arrived: the attempt this ask is the next of (admit_arrivals). */
  after?: string | null;
  /** Whether whoever asked is gone (their call timed out and was closed): such an ask starts nothing. */
  gone?: () => boolean;
}

/** The caps of each ask from its workspace's plan (read before the locks: a plan changed a moment ago applies to the next batch). */
async function arrivalsOf(sql: Sql | Db, asks: Ask[]): Promise<ArrivalAsk[]> {
  const plans = await planNamesOf(sql as Db, [...new Set(asks.map((a) => a.workspaceId))]);
  return asks.map((a) => {
    const plan = planOf(plans.get(a.workspaceId) ?? 'free');
    return {
      sessionId: a.sessionId,
      workspaceId: a.workspaceId,
      projectId: a.projectId,
      buildId: a.buildId,
      copyCap: allowance('containers', plan),
      roomCap: a.roomViewerCap ?? plan.concurrentViewers,
      ...(a.after !== undefined ? { after: a.after } : {}),
    };
  });
}

/**
 * Decides a batch of viewers arriving on this host, in their order, in one statement
 * (admit_arrivals): each gets their copy already there, a warm copy, a reserved slot, a place in
 * the queue, or full. A session asked twice in one batch is decided once; its later asks answer
 * `existing`, as does an ask whose caller has gone.
 */
export async function admitViewers(sql: Sql, host: HostScope, asks: Ask[]): Promise<Admission[]> {
  const out: Admission[] = asks.map(() => ({ kind: 'existing' }));
  const live = asks.map((a, i) => ({ a, i })).filter(({ a }) => !a.gone?.());
  if (!live.length) return out;
  const arrivals = await arrivalsOf(
    sql,
    live.map(({ a }) => a),
  );
  const decided = await admitArrivals(sql, host.runnerId, host.hostCapacity, arrivals);
  const copies = new Map(
    (
      await copiesByIds(
        sql,
        decided.flatMap((d) => (d.copyId ? [d.copyId] : [])),
      )
    ).map((c) => [c.id, c]),
  );
  const evicted = new Map<number, CopyRow[]>();
  for (const d of decided) {
    if (d.kind !== 'evicted') continue;
    const victim = copies.get(d.copyId!);
    if (victim) evicted.set(d.i, [...(evicted.get(d.i) ?? []), victim]);
  }
  for (const d of decided) {
    const at = live[d.i].i;
    const copy = d.copyId ? copies.get(d.copyId) : undefined;
    if (d.kind === 'full') out[at] = { kind: 'full', reason: d.reason ?? 'room' };
    else if (d.kind === 'queued' && copy) out[at] = { kind: 'queued', copy };
    else if (d.kind === 'claimed' && copy) out[at] = { kind: 'claimed', copy, evicted: [] };
    else if (d.kind === 'admitted' && copy) out[at] = { kind: 'admitted', copy, evicted: evicted.get(d.i) ?? [] };
  }
  return out;
}

/** The copies each plan runs at once, by plan name: admit_queued joins each workspace's plan to it. */
const containerCaps = Object.fromEntries(PlanName.map((name) => [name, allowance('containers', planOf(name))]));

/**
 * One pass over the queue for this host: the workspaces whose first waiting viewer this host may
 * let in (its own, or a live peer's: a queued viewer holds nothing on a host), oldest head first,
 * skipping those another host is letting in right now; as many of each workspace's viewers as its
 * caps and this host's allow, in their order, in one statement (admit_queued). Where a copy
 * could be given up for a workspace's head, the statement stops and the pass goes on from that
 * workspace in a transaction of its own (queue-evictions.ts), so the order is one pass's.
 * `admitted` hears of each viewer let in once it is committed. Returns how many were let in and
 * how many workspaces were left to another host.
 */
export async function admitQueuedOnce(
  sql: Sql,
  host: HostScope,
  peers: string[],
  admitted: (a: Admission) => void,
): Promise<{ let: number; skipped: number }> {
  const decided = await admitQueued(sql, host.runnerId, host.hostCapacity, peers, containerCaps);
  let skipped = decided.filter((d) => d.kind === 'skipped').length;
  const letIn = decided.filter((d) => d.kind === 'admitted' || d.kind === 'claimed');
  // Read after the commit: no lock is held while the copies come back.
  const ids = letIn.map((d) => d.copyId!);
  const copies = new Map((await copiesByIds(sql, ids)).map((c) => [c.id, c]));
  let n = 0;
  for (const d of letIn) {
    const copy = copies.get(d.copyId!);
    if (!copy) continue;
    admitted(d.kind === 'claimed' ? { kind: 'claimed', copy, evicted: [] } : { kind: 'admitted', copy, evicted: [] });
    n++;
  }
  // The rest of the pass, from the workspace where a copy may be given up, in the pass's order.
  const evicting = decided.filter((d) => d.kind === 'evict-needed' || d.kind === 'not-passed').map((d) => d.workspace);
  if (evicting.length) {
    const rest = await admitQueuedEvicting(sql, host, evicting);
    for (const a of rest.out) admitted(a);
    n += rest.out.length;
    skipped += rest.skipped;
  }
  return { let: n, skipped };
}
