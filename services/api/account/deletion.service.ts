import { Refusal, refused, signInFirst } from '../../core/rules/errors.js';
import type { AccountPurgeJob } from '../../core/infra/jobs.js';
import { deleteAccountRows, deletionBlockers } from '../../data/account-deletion.sql.js';
import type { Deps } from '../api-deps.js';

// Deleting one's own account (spec 3 Account, 4.6 deletable and deleteAccount). The rows go in one
// transaction (services/data/account-deletion.sql.ts); the stored objects are purged by a queued,
// idempotent job, and the hourly sweep runs any purge whose job never finished.

export async function deletable(deps: Pick<Deps, 'sql'>, personId: string) {
  const blockers = await deletionBlockers(deps.sql, personId);
  return { allowed: blockers.length === 0, blockers };
}

export async function deleteAccount(deps: Pick<Deps, 'sql' | 'queues' | 'log'>, personId: string, confirm: string) {
  const outcome = await deleteAccountRows(deps.sql, personId, confirm);
  if (!outcome.deleted) {
    if (outcome.why === 'gone') throw signInFirst();
    if (outcome.why === 'confirm') throw refused(422, 'confirm', "type the account's email to delete it");
    throw new Refusal(422, 'refused: blocked', 'blocked', {
      detail: 'an owned workspace still holds projects or other people: delete them, or hand the team over, first',
      blockers: outcome.blockers,
    });
  }
  const job: AccountPurgeJob = { purgeId: outcome.purgeId };
  try {
    await deps.queues.add('account.purge', job, {
      jobId: outcome.purgeId,
      attempts: 5,
      backoff: { type: 'exponential', delay: 5000 },
      removeOnComplete: { age: 24 * 3600 },
      removeOnFail: { age: 7 * 24 * 3600 },
    });
  } catch (err) {
    // The rows are gone and the purge is recorded: the sweep runs it.
    deps.log.warn({ err, purgeId: outcome.purgeId }, 'account purge not enqueued; the sweep will run it');
  }
  return { deleted: true as const };
}
