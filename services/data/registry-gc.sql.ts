import type { Db } from '../core/infra/db.js';

// The registry's garbage collection (migration 00033, workers/leftovers-sweep/registry-gc.sweep.ts): one
// row per registry (its URL). Every step is one conditional update, so two sweeps at once never
// both close, both run, or reopen each other's window.

export interface RegistryGcRow {
  wantedSince: Date | null;
  pushesClosedAt: Date | null;
  runningSince: Date | null;
  lastRunAt: Date | null;
}

/** The sweep deleted manifests from `registry`: a collection is wanted (the earliest time stays). */
export async function wantRegistryGc(db: Db, registry: string): Promise<void> {
  await db`
    insert into registry_gc (registry, wanted_since) values (${registry}, now())
    on conflict (registry) do update set wanted_since = coalesce(registry_gc.wanted_since, now())`;
}

export async function registryGcState(db: Db, registry: string): Promise<RegistryGcRow | null> {
  const [row] = await db<RegistryGcRow[]>`
    select wanted_since, pushes_closed_at, running_since, last_run_at from registry_gc where registry = ${registry}`;
  return row ?? null;
}

/** When pushes were closed for a collection of `registry`, or null while they are open. */
export async function registryPushesClosedAt(db: Db, registry: string): Promise<Date | null> {
  return (await registryGcState(db, registry))?.pushesClosedAt ?? null;
}

/**
 * Closes pushes when a collection is wanted and none ran in the last `everyHours`; answers whether
 * this call closed them.
 */
export async function closeRegistryPushes(db: Db, registry: string, everyHours: number, now: Date): Promise<boolean> {
  const rows = await db`
    update registry_gc set pushes_closed_at = ${now}
    where registry = ${registry} and pushes_closed_at is null and wanted_since is not null
      and (last_run_at is null or last_run_at < ${now}::timestamptz - make_interval(hours => ${everyHours}))
    returning registry`;
  return rows.length === 1;
}

/**
 * Claims the run of a collection whose pushes closed at least `waitSeconds` ago; a claim older
 * than an hour is a collector that died. Answers whether this call holds the claim.
 */
export async function claimRegistryGc(db: Db, registry: string, waitSeconds: number, now: Date): Promise<boolean> {
  const rows = await db`
    update registry_gc set running_since = ${now}
    where registry = ${registry}
      and pushes_closed_at <= ${now}::timestamptz - make_interval(secs => ${waitSeconds})
      and (running_since is null or running_since < ${now}::timestamptz - interval '1 hour')
    returning registry`;
  return rows.length === 1;
}

/**
 * Ends a claimed collection and reopens pushes. After a run, manifests deleted before it began are
 * collected (wanted_since cleared unless newer); after a failure the wish stays for the next window.
 */
export async function endRegistryGc(db: Db, registry: string, result: Record<string, unknown>, ok: boolean, now: Date): Promise<void> {
  await db`
    update registry_gc set pushes_closed_at = null, running_since = null, last_run_at = ${now},
      last_result = ${db.json(result as never)},
      wanted_since = case when ${ok} and wanted_since <= running_since then null else wanted_since end
    where registry = ${registry}`;
}
