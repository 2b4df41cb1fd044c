import type { Db, Sql } from '../core/infra/db.js';

// What each workspace keeps in the image registry (migration 00037; docs/decisions/registry-and-images.md).
// Distribution cannot count or refuse bytes itself, so every push body passes
// the api's registry gate, which reserves its bytes here before it forwards them.

/**
 * How long the data of an upload never finished may stay in the registry's store (hours): the
 * registry's `maintenance.uploadpurging.age` (infra/k8s/registry.yaml) and its purge interval.
 * Until then an unfinished upload's bytes count.
 */
export const unfinishedUploadHours = 26;

/**
 * Bytes the workspace holds in the registry now: each finished blob or manifest once (by its
 * digest, whatever repository or upload), and every unfinished upload still in the store.
 */
export async function registryBytesUsed(db: Db, workspaceId: string): Promise<number> {
  const [row] = await db<{ bytes: string }[]>`select (${bytesHeld(db, workspaceId)})::text as bytes`;
  return Number(row.bytes);
}

/** registryBytesUsed's sum, as a part of a statement. */
function bytesHeld(db: Db, workspaceId: string) {
  return db`
    coalesce((select sum(b) from (select max(bytes) as b from registry_pushes
              where workspace_id = ${workspaceId} and digest is not null group by digest) d), 0)
    + coalesce((select sum(bytes) from registry_pushes
              where workspace_id = ${workspaceId} and digest is null
                and started_at > now() - make_interval(hours => ${unfinishedUploadHours})), 0)`;
}

/**
 * Reserves `bytes` more for the upload `upload` of the workspace when they fit under `quota`;
 * answers whether they did. One workspace's reservations run one at a time (an advisory lock),
 * so two pushes at once cannot both take the last bytes. A manifest's row names its project
 * (`manifestOf`): one no build names is deleted a day later (unbuiltManifests).
 */
export async function reserveRegistryBytes(
  sql: Sql,
  workspaceId: string,
  upload: string,
  bytes: number,
  quota: number,
  manifestOf: string | null = null,
): Promise<boolean> {
  // The lock and the checked insert are sent together (pipelined in one exchange with Postgres):
  // the lock is then held for that exchange and the commit, where a lock, a sum, an insert and
  // the commit took four, and the pushes of one image (its config and layers, side by side) wait
  // that much less on each other. The insert's statement reads the sum after the lock is granted
  // (a statement's snapshot is taken when it starts).
  const [, reserved] = await sql.begin((tx) => [
    tx`select pg_advisory_xact_lock(hashtext(${`registry-usage:${workspaceId}`}))`,
    tx`
      insert into registry_pushes (workspace_id, upload, bytes, project_id)
      select ${workspaceId}::uuid, ${upload}::text, ${bytes}::bigint, ${manifestOf}::uuid
      where (${bytesHeld(tx, workspaceId)}) + ${bytes}::bigint <= ${quota}::bigint
      on conflict (workspace_id, upload) do update set bytes = registry_pushes.bytes + excluded.bytes
      returning 1`,
  ]);
  return reserved.length > 0;
}

/** Gives back reserved bytes that were not forwarded (a body cut short, a request the registry refused). */
export async function releaseRegistryBytes(db: Db, workspaceId: string, upload: string, bytes: number): Promise<void> {
  if (bytes <= 0) return;
  await db`
    update registry_pushes set bytes = greatest(bytes - ${bytes}, 0)
    where workspace_id = ${workspaceId} and upload = ${upload}`;
}

/** The registry stored the upload under `digest` (its 201): counted once per digest from now on. */
export async function finishRegistryUpload(db: Db, workspaceId: string, upload: string, digest: string): Promise<void> {
  await db`update registry_pushes set digest = ${digest} where workspace_id = ${workspaceId} and upload = ${upload}`;
}

/** The garbage collection deleted these blobs from the store: no workspace holds them any more. */
export async function forgetRegistryBlobs(db: Db, digests: string[]): Promise<number> {
  if (!digests.length) return 0;
  const rows = await db`delete from registry_pushes where digest = any(${digests}::text[]) returning 1`;
  return rows.length;
}

/** Unfinished uploads the registry's upload purging has removed by now. */
export async function forgetPurgedRegistryUploads(db: Db): Promise<number> {
  const rows = await db`
    delete from registry_pushes
    where digest is null and started_at < now() - make_interval(hours => ${unfinishedUploadHours}) returning 1`;
  return rows.length;
}

/** Whether anything was pushed since `since` (null: ever): blobs no manifest may name wait for a collection. */
export async function registryPushedSince(db: Db, since: Date | null): Promise<boolean> {
  const [row] = await db<{ any: boolean }[]>`
    select exists (select 1 from registry_pushes where ${since}::timestamptz is null or started_at > ${since}::timestamptz) as any`;
  return row.any;
}

/** How long a pushed manifest may wait for a build to name it (hours): a deploy's createBuild follows its push within minutes. */
export const unbuiltManifestHours = 24;

export interface UnbuiltManifest {
  workspaceId: string;
  projectId: string;
  upload: string;
  digest: string;
}

/**
 * Manifests pushed over unbuiltManifestHours ago that no build of their project names, not yet
 * deleted: a deploy whose rehearsal failed after its manifest went up, or a push by hand. One
 * pushed to the project again since (the same files make the same manifest) waits for that push
 * to age too: its deploy's createBuild may be on its way.
 */
export async function unbuiltManifests(
  db: Db,
  batch: number,
  perWorkspace = Math.max(1, Math.floor(batch / 5)),
): Promise<UnbuiltManifest[]> {
  const hours = unbuiltManifestHours;
  // Oldest first, at most perWorkspace of one workspace's: thousands pushed by hand by one
  // workspace (its quota bounds them) take its own share of each round, not every other's.
  return db<UnbuiltManifest[]>`
    select workspace_id, project_id, upload, digest from (
      select r.workspace_id, r.project_id, r.upload, r.digest, r.started_at,
             row_number() over (partition by r.workspace_id order by r.started_at, r.upload) as nth
      from registry_pushes r
      where r.project_id is not null and r.digest is not null and r.unbuilt_deleted_at is null
        and r.started_at < now() - make_interval(hours => ${hours})
        and not exists (select 1 from builds b where b.project_id = r.project_id and b.image_manifest = r.digest)
        and not exists (select 1 from registry_pushes again where again.project_id = r.project_id and again.digest = r.digest
                          and again.started_at >= now() - make_interval(hours => ${hours}))
    ) due
    where nth <= ${perWorkspace}
    order by started_at, upload
    limit ${batch}`;
}

/** The sweep deleted the unbuilt manifest from the registry (its bytes count until the collection frees them). */
export async function markUnbuiltManifestDeleted(db: Db, workspaceId: string, upload: string): Promise<void> {
  await db`update registry_pushes set unbuilt_deleted_at = now() where workspace_id = ${workspaceId} and upload = ${upload}`;
}
