import { UnrecoverableError, type Job } from 'bullmq';
import { AccountPurgeJob } from '../../services/core/infra/jobs.js';
import { registryDelete, registryOf } from '../../services/core/infra/registry/registry-pull.js';
import { type PurgeRemovers, runAccountPurge, stalePurges } from '../../services/data/account-deletion.sql.js';
import { wantRegistryGc } from '../../services/data/registry-gc.sql.js';
import { registryGcTargetOf } from '../leftovers-sweep/registry-gc.sweep.js';
import type { WorkerDeps } from '../worker-deps.js';

/**
 * account-purge (enqueued by deleteAccount once its transaction commits): empties the object-store
 * prefixes the deleted account left, then forgets them. Idempotent: a retry, or the sweep's run of
 * the same purge, finds the row gone and removes nothing more.
 */
export async function accountPurge(deps: WorkerDeps, job: Job) {
  const parsed = AccountPurgeJob.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`bad account-purge payload: ${parsed.error.message}`);
  const done = await runAccountPurge(deps.sql, parsed.data.purgeId, purgeRemovers(deps));
  deps.log.info({ purgeId: parsed.data.purgeId, ...done }, 'account purge done');
  return done ?? { objects: 0, manifests: 0 };
}

/** The sweep's share: purges left behind (lost enqueue, a crash, retries spent) run here. */
export async function sweepAccountPurges(deps: Pick<WorkerDeps, 'sql' | 'storage' | 'config'>, minutes = 15): Promise<number> {
  let done = 0;
  for (const purgeId of await stalePurges(deps.sql, minutes)) {
    if ((await runAccountPurge(deps.sql, purgeId, purgeRemovers(deps))) !== null) done += 1;
  }
  return done;
}

/**
 * The object store's prefixes, and the registry's manifests (repositories are per workspace):
 * each manifest deleted makes a garbage collection wanted, which frees the layers no other
 * manifest names (workers/leftovers-sweep/registry-gc.sweep.ts).
 */
function purgeRemovers(deps: Pick<WorkerDeps, 'sql' | 'storage' | 'config'>): PurgeRemovers {
  const registry = registryOf(deps.config);
  const gc = registryGcTargetOf(deps.config);
  return {
    deletePrefix: (prefix) => deps.storage.deletePrefix(prefix),
    deleteManifest: registry
      ? async (repository, digest) => {
          await registryDelete(registry, repository, `manifests/${digest}`);
          if (gc) await wantRegistryGc(deps.sql, gc.registry);
        }
      : undefined,
  };
}
