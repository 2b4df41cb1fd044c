import type { AdmissionCounts } from '../../services/data/copy-admission-batch.sql.js';

// The decision of a batch of arrivals, in memory, against one read of the counts (Kubernetes'
// ResourceQuota admission: a namespace's waiters batched against one read, written once). Pure:
// what it decides is written by admission-batch.ts under the locks the counts were read under,
// so the caps are as exact as when each viewer was counted by a query of its own.
//
// Per arrival, in order (the rules of a single admission, docs/runner.md "Caps"):
//   a session that already has a copy keeps it, and an ask made before the session's latest copy
//     (a timed-out call decided after its retry) starts nothing: a start is keyed by the session
//     and the attempt;
//   a plan without containers, or a room at its viewers at once, is full;
//   with nobody waiting in the workspace: a warm copy of the build on this host is taken, else a
//     slot is reserved when the workspace and the host both have one, else a copy nobody looks at
//     (warm or paused) may be given up for the viewer (`evict`: the caller does that against the
//     database and decides the rest again), else the viewer queues;
//   with someone waiting, the viewer queues behind them: nobody is overtaken.

export interface Arrival {
  sessionId: string;
  workspaceId: string;
  projectId: string;
  buildId: string;
  /** The workspace's copy cap (0: its plan runs no containers) and the room's viewers at once. */
  copyCap: number;
  roomCap: number;
  /**
   * The session's latest copy when the ask arrived (null: it had none): the attempt this ask is
   * the next of. When the session has had another copy since (a retry of a call that timed out
   * was decided first, and the viewer may have left already), the ask is stale and starts nothing.
   * Undefined: not checked.
   */
  after?: string | null;
}

export type Decision =
  | { kind: 'existing' }
  | { kind: 'full'; reason: 'room' | 'plan' }
  | { kind: 'claim'; copyId: string }
  | { kind: 'admit' }
  | { kind: 'queue' }
  | { kind: 'evict' };

/** The counts as the batch goes: each decision moves them. */
export class Tally {
  private readonly existing: Set<string>;
  private readonly latest: Map<string, string>;
  private readonly rooms: Map<string, number>;
  private readonly workspaces: Map<string, { live: number; queued: number; spare: number }>;
  private readonly warm: Map<string, string[]>;
  host: { live: number; spare: number };

  constructor(
    counts: AdmissionCounts,
    readonly hostCapacity: number,
  ) {
    this.existing = new Set(counts.existing);
    this.latest = new Map(Object.entries(counts.latest ?? {}));
    this.rooms = new Map(Object.entries(counts.rooms));
    this.workspaces = new Map(Object.entries(counts.workspaces).map(([w, [live, queued, spare]]) => [w, { live, queued, spare }]));
    this.warm = new Map(Object.entries(counts.warm).map(([b, ids]) => [b, [...ids]]));
    this.host = { live: counts.host[0], spare: counts.host[1] };
  }

  workspace(id: string) {
    let w = this.workspaces.get(id);
    if (!w) this.workspaces.set(id, (w = { live: 0, queued: 0, spare: 0 }));
    return w;
  }

  /** Decides one arrival and counts what it takes. */
  decide(a: Arrival): Decision {
    if (this.existing.has(a.sessionId)) return { kind: 'existing' };
    if (a.after !== undefined && (this.latest.get(a.sessionId) ?? null) !== a.after) return { kind: 'existing' };
    if (a.copyCap === 0) return { kind: 'full', reason: 'plan' };
    const room = this.rooms.get(a.projectId) ?? 0;
    if (room >= a.roomCap) return { kind: 'full', reason: 'room' };
    const w = this.workspace(a.workspaceId);
    const decision = w.queued ? ({ kind: 'queue' } as const) : this.slotFor(a, w);
    if (decision.kind === 'evict') return decision;
    this.existing.add(a.sessionId);
    this.rooms.set(a.projectId, room + 1);
    if (decision.kind === 'queue') w.queued++;
    if (decision.kind === 'admit') {
      w.live++;
      this.host.live++;
    }
    return decision;
  }

  private slotFor(a: Arrival, w: { live: number; spare: number }): Decision {
    const warm = this.takeWarm(a.buildId);
    // A warm copy is live already: taking it moves no count but the room's.
    if (warm) return { kind: 'claim', copyId: warm };
    const needWorkspace = w.live >= a.copyCap;
    const needHost = this.host.live >= this.hostCapacity;
    if (!needWorkspace && !needHost) return { kind: 'admit' };
    // Over a cap already (lowered since): nothing given up helps.
    if (w.live > a.copyCap || this.host.live > this.hostCapacity) return { kind: 'queue' };
    const canGiveUp = (!needWorkspace || w.spare > 0) && (!needHost || this.host.spare > 0);
    return canGiveUp ? { kind: 'evict' } : { kind: 'queue' };
  }

  /** One of this host's unclaimed copies of the build, taken out of the batch's hands. */
  takeWarm(buildId: string): string | undefined {
    return this.warm.get(buildId)?.shift();
  }

  /** The arrival holds a copy now (one given up for it): its session and room count it. */
  seat(a: Pick<Arrival, 'sessionId' | 'projectId'>): void {
    this.existing.add(a.sessionId);
    this.rooms.set(a.projectId, (this.rooms.get(a.projectId) ?? 0) + 1);
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
