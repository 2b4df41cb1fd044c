import type { Db, Sql } from '../../services/core/infra/db.js';
import { allowance, planOf } from '../../services/core/rules/plans.js';
import { planNamesOf } from '../../services/data/workspaces.sql.js';
import { transition, type CopyRow } from '../../services/data/copies.sql.js';
import { liveCopyCounts } from '../../services/data/copy-admission.sql.js';
import { admissionCounts, admitQueuedCopies, queuedIn, tryWorkspacesThenHost } from '../../services/data/copy-admission-batch.sql.js';
import type { HostScope } from '../service/runner-context.js';
import { type Decision, queuePass, Tally } from './queue-pass.js';
import { type Admission, claimCopy, reserve } from './copy-admission.js';

// The rare part of a pass over the queue: from a workspace stopped at a cap where a warm or paused
// copy could be given up for the viewer at its head, on (admit_queued names it and those after
// it). Giving a copy up goes back to the database in the middle, copy by copy, so these go
// through one transaction as every pass once did: the workspaces' and the host's locks, one read
// of the counts, the decisions in memory (queue-pass.ts), the writes.

const sorted = (xs: string[]) => [...new Set(xs)].sort();

/**
 * Lets in these workspaces' waiting viewers (oldest head first), giving copies up where that
 * makes room, skipping those another host is letting in right now. Returns whom it let in and how
 * many workspaces it left to another host.
 */
export async function admitQueuedEvicting(
  sql: Sql,
  host: HostScope,
  workspaceIds: string[],
): Promise<{ out: Admission[]; skipped: number }> {
  const plans = await planNamesOf(sql, workspaceIds);
  const copyCaps = new Map(workspaceIds.map((w) => [w, allowance('containers', planOf(plans.get(w) ?? 'free'))]));
  let skipped = 0;
  const out = (await sql.begin(async (tx) => {
    const taken = await tryWorkspacesThenHost(tx, workspaceIds, host.runnerId);
    skipped = workspaceIds.length - taken.length;
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
  return { out, skipped };
}

/** Writes what a pass decided: the slots reserved in one statement, the warm hand-overs one by one. */
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
