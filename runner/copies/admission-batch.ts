import type { Db, Sql } from '../../services/core/infra/db.js';
import { allowance, planOf } from '../../services/core/rules/plans.js';
import { planNamesOf } from '../../services/data/workspaces.sql.js';
import { transition, type CopyRow } from '../../services/data/copies.sql.js';
import { liveCopyCounts } from '../../services/data/copy-admission.sql.js';
import {
  admissionCounts,
  admitArrivals,
  admitQueuedCopies,
  type ArrivalAsk,
  copiesByIds,
  queuedIn,
  tryWorkspacesThenHost,
} from '../../services/data/copy-admission-batch.sql.js';
import { queueHeadsOn } from '../../services/data/copy-admission.sql.js';
import type { HostScope } from '../service/runner-context.js';
import { type Decision, queuePass, Tally } from './queue-pass.js';
import { type Admission, claimCopy, reserve } from './copy-admission.js';

// A batch of arrivals decided by one statement (admit_arrivals, migrations/00035: the locks, the
// counts and every decision inside Postgres, the locks held for milliseconds), and a pass over the
// queue in one transaction: the workspaces' and the host's locks, one read of the counts, the
// decisions in memory (queue-pass.ts), one write. Neither holds a lock while a copy starts (its
// starter runs after the commit). In a pass, giving up a warm or paused copy for a viewer is the
// one step that goes back to the database in the middle, copy by copy.

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

const sorted = (xs: string[]) => [...new Set(xs)].sort();

/** An ask not decided: its workspace was another host's at that moment (admitViewers without `wait`). */
export type Busy = { kind: 'busy' };

/**
 * Decides a batch of viewers arriving on this host, in their order, in one statement
 * (admit_arrivals): each gets their copy already there, a warm copy, a reserved slot, a place in
 * the queue, or full. A session asked twice in one batch is decided once; its later asks answer
 * `existing`, as does an ask whose caller has gone. Without `wait`, the asks of a workspace
 * another host is deciding answer `busy`, and nothing is done for them.
 */
export async function admitViewers(sql: Sql, host: HostScope, asks: Ask[], wait = true): Promise<(Admission | Busy)[]> {
  const out: (Admission | Busy)[] = asks.map(() => ({ kind: 'existing' }));
  const live = asks.map((a, i) => ({ a, i })).filter(({ a }) => !a.gone?.());
  if (!live.length) return out;
  const arrivals = await arrivalsOf(
    sql,
    live.map(({ a }) => a),
  );
  const decided = await admitArrivals(sql, host.runnerId, host.hostCapacity, arrivals, wait);
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
    if (d.kind === 'busy') out[at] = { kind: 'busy' };
    else if (d.kind === 'full') out[at] = { kind: 'full', reason: d.reason ?? 'room' };
    else if (d.kind === 'queued' && copy) out[at] = { kind: 'queued', copy };
    else if (d.kind === 'claimed' && copy) out[at] = { kind: 'claimed', copy, evicted: [] };
    else if (d.kind === 'admitted' && copy) out[at] = { kind: 'admitted', copy, evicted: evicted.get(d.i) ?? [] };
  }
  return out;
}

/**
 * One pass over the queue for this host: the workspaces whose first waiting viewer this host may
 * let in (its own, or a live peer's: a queued viewer holds nothing on a host), oldest head first,
 * skipping those another host is letting in right now; as many of each workspace's viewers as its
 * caps and this host's allow, in their order. `admitted` hears of each as the pass commits.
 * Returns how many were let in and how many workspaces were left to another host.
 */
export async function admitQueuedOnce(
  sql: Sql,
  host: HostScope,
  peers: string[],
  admitted: (a: Admission) => void,
): Promise<{ let: number; skipped: number }> {
  const heads = await queueHeadsOn(sql, host.runnerId, peers);
  if (!heads.length) return { let: 0, skipped: 0 };
  const plans = await planNamesOf(
    sql,
    heads.map((h) => h.workspaceId),
  );
  const copyCaps = new Map(heads.map((h) => [h.workspaceId, allowance('containers', planOf(plans.get(h.workspaceId) ?? 'free'))]));
  let skipped = 0;
  const out = (await sql.begin(async (tx) => {
    const taken = await tryWorkspacesThenHost(
      tx,
      heads.map((h) => h.workspaceId),
      host.runnerId,
    );
    skipped = heads.length - taken.length;
    if (!taken.length) return [];
    // No workspace lets in more than its cap nor this host more than its capacity in one pass.
    const each = Math.max(1, Math.min(host.hostCapacity, Math.max(...taken.map((w) => copyCaps.get(w) ?? 0))));
    const queued = await queuedIn(tx, taken, each);
    const counts = await admissionCounts(tx, {
      runnerId: host.runnerId,
      workspaceIds: taken,
      buildIds: sorted(queued.map((q) => q.buildId)),
    });
    const tally = new Tally(counts, host.hostCapacity);
    const done: Admission[] = [];
    const blocked = new Set<string>();
    let from = 0;
    while (from < queued.length) {
      const pass = queuePass(tally, queued, copyCaps, from, blocked);
      done.push(...(await letIn(tx, host, queued, pass.let)));
      if (pass.stoppedAt === null) break;
      // At a cap with a copy nobody looks at: give it up for the viewer at the head, or stop that workspace.
      const q = queued[pass.stoppedAt];
      const evicted = await reserve(tx, host, q.workspaceId, copyCaps.get(q.workspaceId) ?? 0, true);
      if (evicted) {
        const [copy] = await admitQueuedCopies(tx, [q.id], host.runnerId);
        if (copy) done.push({ kind: 'admitted', copy, evicted });
        tally.recount(q.workspaceId, await liveCopyCounts(tx, q.workspaceId, host.runnerId));
        from = pass.stoppedAt + 1;
      } else {
        tally.noneToGiveUp(q.workspaceId);
        from = pass.stoppedAt;
      }
    }
    return done;
  })) as Admission[];
  for (const a of out) admitted(a);
  return { let: out.length, skipped };
}

/** Writes what a queue pass decided: the slots reserved in one statement, the warm hand-overs one by one. */
async function letIn(
  tx: Db,
  host: HostScope,
  queued: Pick<CopyRow, 'id' | 'sessionId'>[],
  decided: { id: string; decision: Decision }[],
): Promise<Admission[]> {
  const out: Admission[] = [];
  const admits = decided.filter((d) => d.decision.kind === 'admit').map((d) => d.id);
  for (const copy of await admitQueuedCopies(tx, admits, host.runnerId)) out.push({ kind: 'admitted', copy, evicted: [] });
  for (const { id, decision } of decided) {
    if (decision.kind !== 'claim') continue;
    const sessionId = queued.find((q) => q.id === id)?.sessionId;
    // The waiting viewer takes the warm copy; the queued record ends as handed over.
    const handed = await transition(tx, id, ['queued'], 'ended', { set: { endReason: 'handed-over' } });
    const claimed = handed && sessionId ? await claimCopy(tx, decision.copyId, sessionId) : null;
    if (claimed) out.push({ kind: 'claimed', copy: claimed, evicted: [] });
  }
  return out;
}
