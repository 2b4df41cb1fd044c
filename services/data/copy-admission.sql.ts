import type { Db, Sql } from '../core/infra/db.js';
import { liveStates, type CopyRow } from './copies.sql.js';

// The runner's admission reads (runner/copies/copy-admission.ts): the counts behind its caps and
// the copies it may claim or give up. Every one runs inside the transaction that holds
// `lockCopySlots`, so no two admissions count the same free slot.

const live = liveStates as readonly string[];

/** The workspace's lock, then the host's: always in that order, so two admissions never deadlock. */
export async function lockCopySlots(tx: Db, workspaceId: string, runnerId: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(hashtext(${`runner.workspace:${workspaceId}`}))`;
  await tx`select pg_advisory_xact_lock(hashtext(${`runner.host:${runnerId}`}))`;
}

/** Copies not ended that count against the caps: the workspace's, and the host's. */
export async function liveCopyCounts(tx: Db, workspaceId: string, runnerId: string): Promise<{ workspace: number; host: number }> {
  const [n] = await tx<{ workspace: number; host: number }[]>`
    select count(*) filter (where workspace_id = ${workspaceId})::int as workspace,
           count(*) filter (where runner_id = ${runnerId})::int as host
    from runner_copies
    where (workspace_id = ${workspaceId} or runner_id = ${runnerId}) and state = any(${live as string[]})`;
  return n;
}

/**
 * A copy nobody is looking at to give up, freeing the workspace's slot when `inWorkspace` is
 * given and the host's when `onRunner` is: warm ones before paused ones, oldest first.
 */
export async function copyToEvict(
  tx: Db,
  free: { inWorkspace: string | null; onRunner: string | null },
): Promise<{ id: string; state: CopyRow['state'] } | undefined> {
  const [victim] = await tx<{ id: string; state: CopyRow['state'] }[]>`
    select id, state from runner_copies
    where state in ('warm', 'paused')
      and (${free.inWorkspace === null} or workspace_id = ${free.inWorkspace})
      and (${free.onRunner === null} or runner_id = ${free.onRunner})
    order by (state = 'warm') desc, coalesce(paused_at, ready_at, asked_at)
    limit 1 for update skip locked`;
  return victim;
}

/** Whether anyone waits in the workspace's queue. */
export async function workspaceHasQueue(tx: Db, workspaceId: string): Promise<boolean> {
  const [waiting] = await tx`select 1 from runner_copies where workspace_id = ${workspaceId} and state = 'queued' limit 1`;
  return Boolean(waiting);
}

/**
 * The first waiting copy of each workspace whose head this runner holds, or one of `peers` (the
 * live hosts of its fleet: a queued viewer holds nothing on its host, so whichever host has room
 * lets them in), oldest first.
 */
export function queueHeadsOn(sql: Sql, runnerId: string, peers: string[] = []) {
  return sql<{ id: string; workspaceId: string; runnerId: string }[]>`
    select * from (
      select distinct on (workspace_id) id, workspace_id, runner_id, asked_at from runner_copies
      where state = 'queued' order by workspace_id, asked_at, id
    ) h where runner_id = any(${[runnerId, ...peers]}) order by asked_at`;
}

/** Unclaimed copies of the build on this host that are or will be warm (creating, starting, warm). */
export async function warmCopiesComing(tx: Db, runnerId: string, buildId: string): Promise<number> {
  const [have] = await tx<{ n: number }[]>`
    select count(*)::int as n from runner_copies
    where build_id = ${buildId} and runner_id = ${runnerId} and session_id is null and state in ('creating', 'starting', 'warm')`;
  return have.n;
}
