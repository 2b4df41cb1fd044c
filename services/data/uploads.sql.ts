import type { Db, Sql } from '../core/infra/db.js';
import { notFound } from '../core/rules/errors.js';
import { isUuid } from '../core/infra/ids.js';

/** `refused`: the archive check refused the bytes (kept in `refusal`); they can never make a build. */
export type UploadState = 'declared' | 'receiving' | 'received' | 'building' | 'used' | 'refused';

export interface UploadRow {
  id: string;
  workspaceId: string;
  projectId: string;
  kind: 'static' | 'container';
  sizeBytes: string; // bigint arrives as a string
  state: UploadState;
  createdBy: string | null;
  refusal: string | null;
  /** The store's id of the multipart upload a direct upload above 8 MiB goes to (migrations/00031). */
  multipartId: string | null;
}

/** Where an upload's bytes live in the object store. */
export const uploadKey = (uploadId: string) => `uploads/${uploadId}`;

export async function uploadIn(sql: Sql, workspaceId: string, uploadId: string): Promise<UploadRow> {
  if (!isUuid(uploadId)) throw notFound();
  const [row] = await sql<UploadRow[]>`
    select u.* from uploads u join projects p on p.id = u.project_id
    where u.id = ${uploadId} and u.workspace_id = ${workspaceId} and p.deleted_at is null`;
  if (!row) throw notFound();
  return row;
}

/** Moves an upload from one state to another only if it is still in `from`: the move is the lock. */
export async function moveUpload(sql: Sql, uploadId: string, from: UploadState, to: UploadState): Promise<boolean> {
  const rows = await sql`
    update uploads set state = ${to},
      received_at = case when ${to} = 'received' then now() else received_at end,
      used_at = case when ${to} = 'used' then now() else used_at end
    where id = ${uploadId} and state = ${from} returning id`;
  return rows.length === 1;
}

/**
 * Declares an upload unless the workspace's uploads not yet built (declared, receiving, received
 * or building) would then hold more than `quotaBytes`: one transaction under the workspace's
 * upload lock, so racing startUploads cannot all pass. Returns null when over the quota.
 */
export async function declareUpload(
  sql: Sql,
  u: { workspaceId: string; projectId: string; kind: 'static' | 'container'; sizeBytes: number; createdBy: string; quotaBytes: number },
): Promise<{ id: string } | null> {
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext('uploads:' || ${u.workspaceId}))`;
    const [held] = await tx<{ bytes: string }[]>`
      select coalesce(sum(size_bytes), 0)::text as bytes from uploads
      where workspace_id = ${u.workspaceId} and state in ('declared', 'receiving', 'received', 'building')`;
    if (Number(held.bytes) + u.sizeBytes > u.quotaBytes) return null;
    const [row] = await tx<{ id: string }[]>`
      insert into uploads (workspace_id, project_id, kind, size_bytes, created_by)
      values (${u.workspaceId}, ${u.projectId}, ${u.kind}, ${u.sizeBytes}, ${u.createdBy}) returning id`;
    return row;
  }) as Promise<{ id: string } | null>;
}

/**
 * Uploads that will never make a build, oldest first, a batch at a time, locked until the
 * transaction ends (a PUT starting meanwhile waits, then finds the upload gone): declared and not
 * received within `hours`, still receiving after twice that, received or refused and not built.
 */
export function unfinishedUploads(tx: Db, hours: number, batch: number) {
  return tx<{ id: string; multipartId: string | null }[]>`
    select id, multipart_id from uploads
    where (state = 'declared' and created_at < now() - make_interval(hours => ${hours}))
       or (state = 'receiving' and created_at < now() - make_interval(hours => ${2 * hours}))
       or (state in ('received', 'refused') and coalesce(received_at, created_at) < now() - make_interval(hours => ${hours}))
    order by created_at
    limit ${batch}
    for update skip locked`;
}

/** Keeps the id of the multipart upload the store opened for this upload's direct bytes. */
export async function setMultipartId(sql: Sql, uploadId: string, multipartId: string): Promise<void> {
  await sql`update uploads set multipart_id = ${multipartId} where id = ${uploadId}`;
}

export async function deleteUploads(tx: Db, uploadIds: string[]): Promise<void> {
  await tx`delete from uploads where id in ${tx(uploadIds)}`;
}
