import type { Job } from 'bullmq';
import type { WorkerDeps } from '../worker-deps.js';
import { sweepDeletedProjects } from './deleted-projects.sweep.js';
import { sweepExpiredSecrets } from './expired-secrets.sweep.js';
import { sweepUnfinishedUploads } from './unfinished-uploads.sweep.js';
import { sweepManifests } from './pushed-manifests.sweep.js';
import { registryOf } from '../../services/core/infra/registry/registry-pull.js';
import { registryGcState, wantRegistryGc } from '../../services/data/registry-gc.sql.js';
import { forgetPurgedRegistryUploads, registryPushedSince } from '../../services/data/registry-usage.sql.js';
import { collectRegistryGarbage, registryGcTargetOf, registryGcWaitSeconds } from './registry-gc.sweep.js';
import { sweepAccountPurges } from '../account-purge/account-purge.job.js';
import { endQuietVisitsEverywhere } from '../../services/data/visits.sql.js';
import { deleteOldDeliveries } from '../../services/data/webhooks.sql.js';

/** How often the sweep runs (ms; workers/main.ts schedules it). */
export const SWEEP_EVERY_MS = 60 * 60 * 1000;

/**
 * sweep (hourly, scheduled by workers/main.ts): removes what can no longer be used. Every step is
 * idempotent, so a sweep that is retried, or runs twice at once, removes nothing more.
 *
 * Unused images in the container engines are not swept here: images live on each container
 * host, and only the runner talks to the engine, so each runner collects its own host's images
 * (runner/images/image-store.ts `collect`; the rule is in the README's operations section).
 */
export async function sweep(deps: WorkerDeps, job?: Job) {
  const secrets = await sweepExpiredSecrets(deps.sql);
  await job?.updateProgress(30);
  const unfinishedUploads = await sweepUnfinishedUploads(deps.sql, deps.storage);
  await job?.updateProgress(60);
  const purged = await sweepDeletedProjects(deps.sql, deps.storage);
  const { superseded: pushedManifests, unbuilt: unbuiltManifests } = await sweepManifests(deps.sql, registryOf(deps.config));
  await job?.updateProgress(90);
  // Visits whose viewer vanished without saying goodbye end at their last beacon.
  const quietVisits = await endQuietVisitsEverywhere(deps.sql);
  // A deleted account's objects whose purge job never finished (its enqueue was lost in a crash).
  const accountPurges = await sweepAccountPurges(deps);
  // Deleted manifests leave layers only the registry's garbage-collect frees (one step per sweep),
  // and so do blobs pushed that no manifest names: any push since the last run wants one.
  const gcTarget = registryGcTargetOf(deps.config);
  const gcState = gcTarget ? await registryGcState(deps.sql, gcTarget.registry) : null;
  if (gcTarget && (pushedManifests + unbuiltManifests > 0 || (await registryPushedSince(deps.sql, gcState?.lastRunAt ?? null))))
    await wantRegistryGc(deps.sql, gcTarget.registry);
  // Uploads never finished that the registry's upload purging has removed count no more.
  const purgedUploads = await forgetPurgedRegistryUploads(deps.sql);
  const registryGc = await collectRegistryGarbage(deps.sql, gcTarget, deps.log);
  // Pushes stay closed until a sweep collects: one is queued for when the wait ends, not the next hour's.
  if (registryGc === 'pushes closed' && gcTarget)
    await deps.queues?.add('leftovers.sweep', {}, { delay: (registryGcWaitSeconds(gcTarget) + 30) * 1000 });
  // Webhook deliveries' logs are kept a month (docs/decisions/webhooks.md).
  const webhookDeliveries = await deleteOldDeliveries(deps.sql);
  await job?.updateProgress(100);
  const counts = {
    ...secrets,
    unfinishedUploads,
    purgedProjects: purged.projects,
    purgedObjects: purged.objects,
    pushedManifests,
    unbuiltManifests,
    purgedUploads,
    registryGc,
    quietVisits,
    accountPurges,
    webhookDeliveries,
  };
  deps.log.info(counts, 'sweep done');
  return counts;
}
