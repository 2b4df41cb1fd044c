import type { Db } from '../core/db.js';

// What the runner's image store reads of builds (runner/images/image-store.ts): where a
// container build's image comes from, and which builds still need theirs on a host.

/**
 * Where a build's image comes from: its upload (a bundle), or its manifest in the project's
 * repository of the registry (a pushed image); its kind, and the image as the worker recorded it.
 */
export async function buildImageOf(db: Db, buildId: string) {
  const [build] = await db<
    {
      uploadId: string | null;
      imageManifest: string | null;
      workspaceId: string;
      projectId: string;
      kind: string;
      image: { id?: string; archiveBytes?: number } | null;
    }[]
  >`
    select upload_id, image_manifest, workspace_id, project_id, kind, image from builds where id = ${buildId}`;
  return build ?? null;
}

/**
 * For each build, whether a host keeps its image: made in the last `recentDays` days, live in a
 * project not deleted, or held by a copy not ended.
 */
export function buildsToKeep(db: Db, buildIds: string[], recentDays: number) {
  return db<{ id: string; keep: boolean }[]>`
    select b.id,
      b.created_at > now() - make_interval(days => ${recentDays})
      or exists (select 1 from projects p where p.live_build_id = b.id and p.deleted_at is null)
      or exists (select 1 from runner_copies c where c.build_id = b.id and c.state <> 'ended') as keep
    from builds b where b.id = any(${buildIds}::uuid[])`;
}

/**
 * Pushed builds of purged projects whose manifest the registry still holds (issue 32): the sweep
 * deletes each manifest from the project's repository, and the registry's garbage-collect then
 * frees the layers no manifest names any more.
 */
export function pushedManifestsToDelete(db: Db, limit: number) {
  return db<{ id: string; workspaceId: string; projectId: string; imageManifest: string }[]>`
    select b.id, b.workspace_id, b.project_id, b.image_manifest from builds b
    join projects p on p.id = b.project_id and p.workspace_id = b.workspace_id
    where b.image_manifest is not null and b.manifest_deleted_at is null and p.purged_at is not null
    order by b.created_at limit ${limit}`;
}

export async function markManifestDeleted(db: Db, workspaceId: string, buildId: string): Promise<void> {
  await db`update builds set manifest_deleted_at = now() where id = ${buildId} and workspace_id = ${workspaceId}`;
}
