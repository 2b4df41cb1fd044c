import type { Sql } from '../core/db.js';
import { notFound } from '../core/errors.js';
import { isUuid } from '../core/ids.js';

export type UploadState = 'declared' | 'receiving' | 'received' | 'building' | 'used';

export interface UploadRow {
  id: string;
  workspaceId: string;
  projectId: string;
  kind: 'static' | 'container';
  sizeBytes: string; // bigint arrives as a string
  state: UploadState;
  createdBy: string | null;
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
