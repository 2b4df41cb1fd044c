import { randomUUID } from 'node:crypto';
import type { Db, Sql } from '../../services/core/db.js';
import { planOf } from '../../services/core/plans.js';
import { transition, type CopyRow } from '../../services/data/copies.sql.js';
import { liveCopyCounts } from '../../services/data/copy-admission.sql.js';
import {
  admissionCounts,
  admitQueuedCopies,
  insertCopies,
  lockWorkspacesAndHost,
  plansOf,
  queuedIn,
  tryWorkspacesThenHost,
  type BatchCopy,
} from '../../services/data/copy-admission-batch.sql.js';
import { queueHeadsOn } from '../../services/data/copy-admission.sql.js';
import type { HostScope } from '../runner-context.js';
import { type Arrival, type Decision, queuePass, Tally } from './admission-decision.js';
import { type Admission, claimCopy, copyCapOf, reserve } from './copy-admission.js';

// A batch of arrivals, or a pass over the queue, decided in one transaction: the workspaces' and
// the host's locks, one read of the counts, the decisions in memory (admission-decision.ts), one
// write. The locks are held for those few round trips, whatever the batch's size, and never while
// a copy starts (its starter runs after the commit). Giving up a warm or paused copy for a viewer
// is the one step that goes back to the database in the middle, copy by copy, as before.

export interface Ask {
  sessionId: string;
  workspaceId: string;
  projectId: string;
  buildId: string;
  /** The room's own viewers at once, when it has one; else the plan's. */
  roomViewerCap?: number;
  /** The session's latest copy when the ask arrived (admission-decision.ts `Arrival.after`). */
  after?: string | null;
  /** Whether whoever asked is gone (their call timed out and was closed): such an ask starts nothing. */
  gone?: () => boolean;
}

/** The caps of each ask from its workspace's plan (read before the locks: a plan changed a moment ago applies to the next batch). */
async function arrivalsOf(sql: Sql | Db, asks: Ask[]): Promise<Arrival[]> {
  const plans = await plansOf(sql as Db, [...new Set(asks.map((a) => a.workspaceId))]);
  return asks.map((a) => {
    const plan = planOf(plans.get(a.workspaceId) ?? 'free');
    return {
      sessionId: a.sessionId,
      workspaceId: a.workspaceId,
      projectId: a.projectId,
      buildId: a.buildId,
      after: a.after,
      copyCap: copyCapOf(plan),
      roomCap: a.roomViewerCap ?? plan.concurrentViewers,
    };
  });
}

const sorted = (xs: string[]) => [...new Set(xs)].sort();

/**
 * Decides a batch of viewers arriving on this host, in their order: each gets its copy already
 * there, a warm copy, a reserved slot, a place in the queue, or full. A session asked twice in
 * one batch is decided once; its later asks answer `existing`.
 */
export async function admitViewers(sql: Sql, host: HostScope, asks: Ask[]): Promise<Admission[]> {
  const arrivals = await arrivalsOf(sql, asks);
  return sql.begin(async (tx) => {
    await lockWorkspacesAndHost(tx, sorted(asks.map((a) => a.workspaceId)), host.runnerId);
    const counts = await admissionCounts(tx, {
      runnerId: host.runnerId,
      sessionIds: asks.map((a) => a.sessionId),
      projectIds: sorted(asks.map((a) => a.projectId)),
      workspaceIds: sorted(asks.map((a) => a.workspaceId)),
      buildIds: sorted(asks.map((a) => a.buildId)),
    });
    const tally = new Tally(counts, host.hostCapacity);
    const out: (Admission | null)[] = arrivals.map(() => null);
    const toWrite: { at: number; copy: BatchCopy }[] = [];
    const write = async () => {
      const rows = await insertCopies(
        tx,
        toWrite.map((w) => w.copy),
      );
      const bySession = new Map(rows.map((r) => [r.sessionId, r]));
      for (const { at, copy } of toWrite.splice(0)) {
        const row = bySession.get(copy.sessionId);
        // Not written: the session got a copy meanwhile (the unique index): that one is theirs.
        out[at] = !row
          ? { kind: 'existing' }
          : row.state === 'queued'
            ? { kind: 'queued', copy: row }
            : { kind: 'admitted', copy: row, evicted: [] };
      }
    };
    const newCopy = (a: Arrival, state: BatchCopy['state']): BatchCopy => ({
      id: randomUUID(),
      runnerId: host.runnerId,
      workspaceId: a.workspaceId,
      projectId: a.projectId,
      buildId: a.buildId,
      sessionId: a.sessionId,
      state,
    });

    for (let i = 0; i < arrivals.length; i++) {
      const a = arrivals[i];
      const d: Decision = asks[i].gone?.() ? { kind: 'existing' } : tally.decide(a);
      if (d.kind === 'existing' || d.kind === 'full') out[i] = d;
      else if (d.kind === 'admit') toWrite.push({ at: i, copy: newCopy(a, 'creating') });
      else if (d.kind === 'queue') toWrite.push({ at: i, copy: newCopy(a, 'queued') });
      else if (d.kind === 'claim') {
        const copy = await claimCopy(tx, d.copyId, a.sessionId);
        // The copy was locked for this batch: it cannot have gone; if it did, ask again.
        if (copy) out[i] = { kind: 'claimed', copy, evicted: [] };
        else i--;
      } else {
        // At a cap with copies nobody looks at: give one up for this viewer, against the database.
        await write();
        const evicted = await reserve(tx, host, a.workspaceId, a.copyCap, true);
        if (!evicted) {
          tally.noneToGiveUp(a.workspaceId);
          i--;
          continue;
        }
        toWrite.push({ at: i, copy: newCopy(a, 'creating') });
        await write();
        const admitted = out[i];
        if (admitted?.kind === 'admitted') admitted.evicted = evicted;
        tally.seat(a);
        tally.recount(a.workspaceId, await liveCopyCounts(tx, a.workspaceId, host.runnerId));
      }
    }
    await write();
    return out as Admission[];
  }) as Promise<Admission[]>;
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
  const plans = await plansOf(
    sql,
    heads.map((h) => h.workspaceId),
  );
  const copyCaps = new Map(heads.map((h) => [h.workspaceId, copyCapOf(planOf(plans.get(h.workspaceId) ?? 'free'))]));
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
      sessionIds: [],
      projectIds: [],
      workspaceIds: taken,
      buildIds: sorted(queued.map((q) => q.buildId)),
      healthyOnly: true,
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
