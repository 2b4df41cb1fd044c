import type { AdmissionCounts } from '../../services/data/copy-admission-batch.sql.js';

// A host's pass over the queue, decided in memory against one read of the counts (Kubernetes'
// ResourceQuota admission: a namespace's waiters batched against one read, written once). Pure:
// what it decides is written by admission-batch.ts under the locks the counts were read under, so
// the caps are as exact as when each viewer was counted by a query of its own. Arrivals are
// decided by the same rules inside Postgres (admit_arrivals, migrations/00035_admit_arrivals.sql).

export type Decision = { kind: 'claim'; copyId: string } | { kind: 'admit' };

/** The counts as the pass goes: each decision moves them. */
export class Tally {
  private readonly workspaces: Map<string, { live: number; spare: number }>;
  private readonly warm: Map<string, string[]>;
  host: { live: number; spare: number };

  constructor(
    counts: AdmissionCounts,
    readonly hostCapacity: number,
  ) {
    this.workspaces = new Map(Object.entries(counts.workspaces).map(([w, [live, spare]]) => [w, { live, spare }]));
    this.warm = new Map(Object.entries(counts.warm).map(([b, ids]) => [b, [...ids]]));
    this.host = { live: counts.host[0], spare: counts.host[1] };
  }

  workspace(id: string) {
    let w = this.workspaces.get(id);
    if (!w) this.workspaces.set(id, (w = { live: 0, spare: 0 }));
    return w;
  }

  /** One of this host's unclaimed copies of the build, taken out of the batch's hands. */
  takeWarm(buildId: string): string | undefined {
    return this.warm.get(buildId)?.shift();
  }

  /** The live counts as the database has them after a copy was given up and a slot taken for it. */
  recount(workspaceId: string, n: { workspace: number; host: number }): void {
    const w = this.workspace(workspaceId);
    w.live = n.workspace;
    w.spare = Math.max(0, w.spare - 1);
    this.host.live = n.host;
    this.host.spare = Math.max(0, this.host.spare - 1);
  }

  /** After the caller tried to give a copy up for a workspace and failed: none there is to give (nor, to be safe, on the host). */
  noneToGiveUp(workspaceId: string): void {
    this.workspace(workspaceId).spare = 0;
    this.host.spare = 0;
  }
}

/**
 * Which queued viewers a host lets in now, in order: for each workspace in turn (oldest head
 * first), its viewers in their order while the workspace and the host have slots; a head that
 * cannot go stops its workspace (first come, first served) but not the others. A viewer whose
 * build has a healthy warm copy here takes it (`claim`); one at a cap with copies to give up
 * stops the pass there (`evict`), for the caller to settle against the database.
 */
export function queuePass(
  tally: Tally,
  queued: { id: string; workspaceId: string; buildId: string }[],
  copyCaps: Map<string, number>,
  from = 0,
  /** Workspaces whose head could not go (kept across calls of one pass). */
  blocked = new Set<string>(),
): { let: { id: string; decision: Decision }[]; stoppedAt: number | null } {
  const out: { id: string; decision: Decision }[] = [];
  for (let i = from; i < queued.length; i++) {
    const q = queued[i];
    if (blocked.has(q.workspaceId)) continue;
    const w = tally.workspace(q.workspaceId);
    const cap = copyCaps.get(q.workspaceId) ?? 0;
    const warm = tally.takeWarm(q.buildId);
    if (warm) {
      out.push({ id: q.id, decision: { kind: 'claim', copyId: warm } });
      continue;
    }
    if (w.live < cap && tally.host.live < tally.hostCapacity) {
      w.live++;
      tally.host.live++;
      out.push({ id: q.id, decision: { kind: 'admit' } });
      continue;
    }
    const needWorkspace = w.live >= cap;
    const needHost = tally.host.live >= tally.hostCapacity;
    const canGiveUp =
      w.live <= cap && tally.host.live <= tally.hostCapacity && (!needWorkspace || w.spare > 0) && (!needHost || tally.host.spare > 0);
    if (canGiveUp) return { let: out, stoppedAt: i };
    blocked.add(q.workspaceId);
    // A full host lets nobody else in either.
    if (needHost) break;
  }
  return { let: out, stoppedAt: null };
}
