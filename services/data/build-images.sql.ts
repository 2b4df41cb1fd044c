import type { Db } from '../core/db.js';

// What the runner's image store reads of builds (runner/images/image-store.ts): where a
// container build's image comes from, and which builds still need theirs on a host.

/** A build's upload (the bundle holding its image), its kind, and the image as the worker recorded it. */
export async function buildImageOf(db: Db, buildId: string) {
  const [build] = await db<{ uploadId: string; kind: string; image: { id?: string; archiveBytes?: number } | null }[]>`
    select upload_id, kind, image from builds where id = ${buildId}`;
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
