import { UnrecoverableError, type Job } from 'bullmq';
import { AccountPurgeJob } from '../../services/core/jobs.js';
import { runAccountPurge, stalePurges } from '../../services/data/account-deletion.sql.js';
import type { WorkerDeps } from '../worker-deps.js';

/**
 * account-purge (enqueued by deleteAccount once its transaction commits): empties the object-store
 * prefixes the deleted account left, then forgets them. Idempotent: a retry, or the sweep's run of
 * the same purge, finds the row gone and removes nothing more.
 */
export async function accountPurge(deps: WorkerDeps, job: Job) {
  const parsed = AccountPurgeJob.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`bad account-purge payload: ${parsed.error.message}`);
  const objects = await runAccountPurge(deps.sql, parsed.data.purgeId, (prefix) => deps.storage.deletePrefix(prefix));
  deps.log.info({ purgeId: parsed.data.purgeId, objects }, 'account purge done');
  return { objects };
}

/** The sweep's share: purges left behind (lost enqueue, a crash, retries spent) run here. */
export async function sweepAccountPurges(deps: Pick<WorkerDeps, 'sql' | 'storage'>, minutes = 15): Promise<number> {
  let done = 0;
  for (const purgeId of await stalePurges(deps.sql, minutes)) {
    if ((await runAccountPurge(deps.sql, purgeId, (prefix) => deps.storage.deletePrefix(prefix))) !== null) done += 1;
  }
  return done;
}
