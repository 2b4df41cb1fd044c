import type { Db } from '../core/infra/db.js';

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
 * Pushed builds whose manifest the registry should no longer hold (issue 32; issue 45, H1): the
 * sweep deletes each manifest from the project's repository, and the registry's garbage-collect
 * then frees the layers no manifest names any more. A manifest goes when its project is purged,
 * or when its build is superseded: not the project's live build, not the one live before it (the
 * rollback a builder is most likely to want), held by no copy not ended, and either older than the
 * live build or unused for `keepHours` (a deploy never made live). A manifest another build of
 * the project made later also names (the same image deployed again) is left to that build.
 */
export function pushedManifestsToDelete(db: Db, limit: number, keepHours = 24) {
  return db<{ id: string; workspaceId: string; projectId: string; imageManifest: string }[]>`
    select b.id, b.workspace_id, b.project_id, b.image_manifest from builds b
    join projects p on p.id = b.project_id and p.workspace_id = b.workspace_id
    left join builds live on live.id = p.live_build_id
    where b.image_manifest is not null and b.manifest_deleted_at is null
      and not exists (select 1 from builds later where later.project_id = b.project_id and later.id <> b.id
                        and later.image_manifest = b.image_manifest and later.created_at >= b.created_at)
      and (p.purged_at is not null or (
        b.id is distinct from p.live_build_id
        and b.id is distinct from (select r.build_id from releases r
                                   where r.project_id = p.id and r.build_id is distinct from p.live_build_id
                                   order by r.released_at desc limit 1)
        and not exists (select 1 from runner_copies c where c.build_id = b.id and c.state <> 'ended')
        and (live.created_at > b.created_at or b.created_at < now() - make_interval(hours => ${keepHours}))))
    order by b.created_at limit ${limit}`;
}

/**
 * Records that the registry no longer holds `buildId`'s manifest. The repository is the project's,
 * so every build of the project that names the same manifest (the same image deployed more than
 * once) lost it too: each is marked, so none can be made live again (makeLive's 422 `collected`).
 */
export async function markManifestDeleted(db: Db, workspaceId: string, buildId: string): Promise<void> {
  await db`
    update builds b set manifest_deleted_at = now()
    from builds deleted
    where deleted.id = ${buildId} and deleted.workspace_id = ${workspaceId}
      and b.project_id = deleted.project_id and b.workspace_id = deleted.workspace_id
      and b.image_manifest = deleted.image_manifest and b.manifest_deleted_at is null`;
}
