import type { Db } from '../core/infra/db.js';

// The layer sizes a pushed image's check read from the registry (migration 00042): the bundle
// check asks the registry only for the layers its workspace has not had checked before.

/** The sizes already checked among `digests`, for this workspace only. */
export async function checkedBlobSizes(db: Db, workspaceId: string, digests: string[]): Promise<Map<string, number>> {
  if (!digests.length) return new Map();
  const rows = await db<{ digest: string; size: string }[]>`
    select digest, size::text from checked_blob_sizes
    where workspace_id = ${workspaceId} and digest = any(${digests}::text[])`;
  return new Map(rows.map((row) => [row.digest, Number(row.size)]));
}

/** Records sizes the registry gave for this workspace's blobs (a digest's size never changes: a row kept is kept). */
export async function recordCheckedBlobSizes(db: Db, workspaceId: string, sizes: Map<string, number>): Promise<void> {
  if (!sizes.size) return;
  const digests = [...sizes.keys()];
  const bytes = digests.map((digest) => String(sizes.get(digest)));
  await db`
    insert into checked_blob_sizes (workspace_id, digest, size)
    select ${workspaceId}, d, s::bigint from unnest(${digests}::text[], ${bytes}::text[]) as t(d, s)
    on conflict (workspace_id, digest) do nothing`;
}

/** The garbage collection deleted these blobs: their checks are forgotten with them. */
export async function forgetCheckedBlobSizes(db: Db, digests: string[]): Promise<number> {
  if (!digests.length) return 0;
  const rows = await db`delete from checked_blob_sizes where digest = any(${digests}::text[]) returning 1`;
  return rows.length;
}
