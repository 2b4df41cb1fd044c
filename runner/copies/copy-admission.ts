import { randomUUID } from 'node:crypto';
import type { Db, Sql } from '../../services/core/db.js';
import { planFor } from '../../services/data/workspaces.sql.js';
import { insertCopy, transition, type CopyRow } from '../../services/data/copies.sql.js';
import {
  copyToEvict,
  firstQueued,
  healthyWarmCopy,
  hostLiveCopies,
  liveCopyCounts,
  lockCopySlots,
  queueHeadsOn,
  roomViewerCopies,
  sessionCopyNotEnded,
  warmCopiesComing,
  warmCopyToClaim,
  workspaceHasQueue,
} from '../../services/data/copy-admission.sql.js';
import type { HostScope } from '../runner-context.js';

// Caps, reserved atomically before the engine is asked for anything (research/runner.md #1):
//   the room's viewers at once   (the plan's concurrentViewers, or the room's own number)
//   the workspace's copies       (the plan's containerCopies; warm, starting, running, paused)
//   the host's copies            (RUNNER_HOST_CAPACITY, per runner instance)
// Every reservation runs in one transaction holding an advisory lock on the workspace, then one
// on the host (always in that order, so two never deadlock), and counts rows that are not ended.
// Racing viewers, or two runners sharing the database, therefore cannot pass a cap.
//
// At the copy cap a viewer waits in a first-come queue (state `queued`, ordered by asked_at): a
// newcomer queues behind anyone already waiting in the workspace, so nobody is overtaken. Before
// anyone queues, warm copies of other builds and paused copies (viewer away) are given up for the
// viewer who is here: those are the slots nobody is looking at.

export type Admission =
  | { kind: 'existing'; copy: CopyRow }
  | { kind: 'full'; reason: 'room' | 'plan' }
  | { kind: 'queued'; copy: CopyRow }
  | { kind: 'claimed'; copy: CopyRow; evicted: CopyRow[] }
  | { kind: 'admitted'; copy: CopyRow; evicted: CopyRow[] };

async function capsOf(tx: Db, workspaceId: string) {
  const plan = await planFor(tx, workspaceId);
  return { plan, copies: plan.staticOnly ? 0 : plan.containerCopies };
}

/** Claims a warm copy of the build on this host: a healthy one first, else one still starting. */
async function claimWarm(tx: Db, host: HostScope, buildId: string, sessionId: string): Promise<CopyRow | null> {
  const warm = await warmCopyToClaim(tx, host.runnerId, buildId);
  if (!warm) return null;
  // A healthy copy becomes the viewer's at once; one still starting does when it is healthy.
  return transition(tx, warm.id, [warm.state as CopyRow['state']], warm.state === 'warm' ? 'running' : (warm.state as CopyRow['state']), {
    set: { sessionId },
    now: ['claimedAt', 'activeAt', 'seenAt'],
    event: 'claim',
  });
}

/**
 * Makes room for one more copy in the workspace and on the host, giving up warm copies and
 * paused copies if it must (`evict`). Returns the copies given up, or null when there is no room.
 */
async function reserve(tx: Db, host: HostScope, workspaceId: string, copyCap: number, evict: boolean): Promise<CopyRow[] | null> {
  const n = await liveCopyCounts(tx, workspaceId, host.runnerId);
  const needWorkspace = n.workspace >= copyCap;
  const needHost = n.host >= host.hostCapacity;
  if (!needWorkspace && !needHost) return [];
  if (!evict || n.workspace > copyCap || n.host > host.hostCapacity) return null;
  // One copy given up must free the workspace's slot if that is short, and the host's if that is:
  // a copy of this workspace on this host frees both. Warm ones before paused ones, oldest first.
  const victim = await copyToEvict(tx, { inWorkspace: needWorkspace ? workspaceId : null, onRunner: needHost ? host.runnerId : null });
  if (!victim) return null;
  const ended = await transition(tx, victim.id, [victim.state], 'ended', {
    set: { endReason: 'evicted' },
    event: 'stop',
    detail: 'evicted',
  });
  return ended ? [ended] : null;
}

/** A viewer session enters: its own copy, a warm one, a reserved slot, a place in the queue, or full. */
export async function admitViewer(
  sql: Sql,
  host: HostScope,
  v: { sessionId: string; workspaceId: string; projectId: string; buildId: string; roomViewerCap?: number },
): Promise<Admission> {
  return sql.begin(async (tx) => {
    await lockCopySlots(tx, v.workspaceId, host.runnerId);
    const mine = await sessionCopyNotEnded(tx, v.sessionId);
    if (mine) return { kind: 'existing', copy: mine } as Admission;
    const { plan, copies } = await capsOf(tx, v.workspaceId);
    if (copies === 0) return { kind: 'full', reason: 'plan' } as Admission;
    if ((await roomViewerCopies(tx, v.projectId)) >= (v.roomViewerCap ?? plan.concurrentViewers))
      return { kind: 'full', reason: 'room' } as Admission;

    if (!(await workspaceHasQueue(tx, v.workspaceId))) {
      const claimed = await claimWarm(tx, host, v.buildId, v.sessionId);
      if (claimed) return { kind: 'claimed', copy: claimed, evicted: [] } as Admission;
      const evicted = await reserve(tx, host, v.workspaceId, copies, true);
      if (evicted) {
        const copy = await insertCopy(tx, {
          id: randomUUID(),
          runnerId: host.runnerId,
          workspaceId: v.workspaceId,
          projectId: v.projectId,
          buildId: v.buildId,
          sessionId: v.sessionId,
          origin: 'viewer',
          state: 'creating',
        });
        return { kind: 'admitted', copy, evicted } as Admission;
      }
    }
    const copy = await insertCopy(
      tx,
      {
        id: randomUUID(),
        runnerId: host.runnerId,
        workspaceId: v.workspaceId,
        projectId: v.projectId,
        buildId: v.buildId,
        sessionId: v.sessionId,
        origin: 'viewer',
        state: 'queued',
      },
      'queued',
    );
    return { kind: 'queued', copy } as Admission;
  });
}

/**
 * Lets in the first waiting viewer of each workspace, oldest first across workspaces, while this
 * host has room. A head of queue that belongs to another runner is that runner's to let in,
 * unless it is one of `peers` (the live hosts of this runner's fleet): then the head moves here.
 * Each head is let in by its own transaction; `admitted` hears of each as it commits, so its copy
 * starts at once, not when the whole pass ends (a long pass would otherwise leave its first
 * admissions 'creating' past the reconcile's bound, and their viewers told it could not start).
 */
export async function admitQueued(
  sql: Sql,
  host: HostScope,
  peers: string[] = [],
  admitted: (a: Admission) => void = () => {},
): Promise<Admission[]> {
  const heads = await queueHeadsOn(sql, host.runnerId, peers);
  const out: Admission[] = [];
  for (const head of heads) {
    const result = await sql.begin(async (tx) => {
      await lockCopySlots(tx, head.workspaceId, host.runnerId);
      const first = await firstQueued(tx, head.workspaceId);
      if (!first || first.id !== head.id) return 'moved' as const;
      const { copies } = await capsOf(tx, head.workspaceId);
      const warm = await healthyWarmCopy(tx, host.runnerId, first.buildId);
      if (warm) {
        // The waiting viewer takes the warm copy; the queued record ends as handed over.
        await transition(tx, head.id, ['queued'], 'ended', { set: { endReason: 'handed-over' } });
        const claimed = await claimWarm(tx, host, first.buildId, first.sessionId!);
        return claimed ? ({ kind: 'claimed', copy: claimed, evicted: [] } as Admission) : ('blocked' as const);
      }
      const evicted = await reserve(tx, host, head.workspaceId, copies, true);
      if (!evicted) {
        return (await hostLiveCopies(tx, host.runnerId)) >= host.hostCapacity ? ('host-full' as const) : ('blocked' as const);
      }
      const copy = await transition(tx, head.id, ['queued'], 'creating', {
        set: { runnerId: host.runnerId },
        now: ['admittedAt', 'activeAt'],
      });
      return copy ? ({ kind: 'admitted', copy, evicted } as Admission) : ('moved' as const);
    });
    if (result === 'host-full') break;
    if (typeof result === 'string') continue;
    out.push(result);
    admitted(result);
  }
  return out;
}

/** Reserves a slot for a warm copy of the build, if nobody waits in its workspace and there is room (never evicting). */
export async function reserveWarm(
  sql: Sql,
  host: HostScope,
  b: { workspaceId: string; projectId: string; buildId: string; want: number },
): Promise<CopyRow | null> {
  return sql.begin(async (tx) => {
    await lockCopySlots(tx, b.workspaceId, host.runnerId);
    if (await workspaceHasQueue(tx, b.workspaceId)) return null;
    if ((await warmCopiesComing(tx, host.runnerId, b.buildId)) >= b.want) return null;
    const { copies } = await capsOf(tx, b.workspaceId);
    const room = await reserve(tx, host, b.workspaceId, copies, false);
    if (!room) return null;
    return insertCopy(tx, {
      id: randomUUID(),
      runnerId: host.runnerId,
      workspaceId: b.workspaceId,
      projectId: b.projectId,
      buildId: b.buildId,
      sessionId: null,
      origin: 'warm',
      state: 'creating',
    });
  }) as Promise<CopyRow | null>;
}
