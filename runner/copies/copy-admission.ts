import { randomUUID } from 'node:crypto';
import type { Db, Sql } from '../../services/core/infra/db.js';
import { planFor } from '../../services/data/workspaces.sql.js';
import { allowance } from '../../services/core/rules/plans.js';
import { insertCopy, transition, type CopyRow } from '../../services/data/copies.sql.js';
import { copyToEvict, liveCopyCounts, lockCopySlots, warmCopiesComing, workspaceHasQueue } from '../../services/data/copy-admission.sql.js';
import type { HostScope } from '../service/runner-context.js';

// Caps, reserved atomically before the engine is asked for anything (research/runner.md #1):
//   the room's viewers at once   (the plan's concurrentViewers, or the room's own number)
//   the workspace's copies       (the plan's containerCopies; warm, starting, running, paused)
//   the host's copies            (RUNNER_HOST_CAPACITY, per runner instance)
// Every reservation runs in one transaction holding an advisory lock on the workspace, then one
// on the host (always in that order, so two never deadlock), and counts rows that are not ended.
// Racing viewers, or two runners sharing the database, therefore cannot pass a cap. Viewers are
// admitted in batches under those locks (admission-batch.ts); this file holds what a batch and
// the warm pool share: the caps of a plan, taking a warm copy, giving a copy up for a viewer.
//
// At the copy cap a viewer waits in a first-come queue (state `queued`, ordered by asked_at): a
// newcomer queues behind anyone already waiting in the workspace, so nobody is overtaken. Before
// anyone queues, warm copies of other builds and paused copies (viewer away) are given up for the
// viewer who is here: those are the slots nobody is looking at.

export type Admission =
  | { kind: 'existing' }
  | { kind: 'full'; reason: 'room' | 'plan' }
  | { kind: 'queued'; copy: CopyRow }
  | { kind: 'claimed'; copy: CopyRow; evicted: CopyRow[] }
  | { kind: 'admitted'; copy: CopyRow; evicted: CopyRow[] };

async function capsOf(tx: Db, workspaceId: string) {
  const plan = await planFor(tx, workspaceId);
  return { plan, copies: allowance('containers', plan) };
}

/** The viewer takes this unclaimed copy (locked by the caller): a healthy one is theirs at once, one still starting when it is healthy. */
export async function claimCopy(tx: Db, copyId: string, sessionId: string): Promise<CopyRow | null> {
  for (const from of ['warm', 'creating', 'starting'] as const) {
    const claimed = await transition(tx, copyId, [from], from === 'warm' ? 'running' : from, {
      set: { sessionId },
      now: ['claimedAt', 'activeAt', 'seenAt'],
      event: 'claim',
    });
    if (claimed) return claimed;
  }
  return null;
}

/**
 * Makes room for one more copy in the workspace and on the host, giving up warm copies and
 * paused copies if it must (`evict`). Returns the copies given up, or null when there is no room.
 */
export async function reserve(tx: Db, host: HostScope, workspaceId: string, copyCap: number, evict: boolean): Promise<CopyRow[] | null> {
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
