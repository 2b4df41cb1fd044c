import { pipeline, Transform, type Readable } from 'node:stream';
import type { Sql } from '../../core/infra/db.js';
import { Refusal, refused } from '../../core/rules/errors.js';
import { planLimit } from '../../core/rules/plans.js';
import type { Storage } from '../../core/infra/storage.js';
import { projectIn } from '../../data/projects.sql.js';
import { assertNotPaused } from '../../data/pauses.js';
import { planNameOf } from '../../data/workspaces.sql.js';
import { presignDirect } from './direct-uploads.service.js';
import { declareUpload, moveUpload, uploadIn, uploadKey } from '../../data/uploads.sql.js';

/** Spec 8: an upload is at most 512 MB, exactly the size declared. */
export const maxUploadBytes = 512 * 1024 * 1024;

/**
 * The bytes a workspace may hold in uploads not yet built: four uploads at the largest size. A
 * build spends its upload; one left unbuilt is swept a day after its bytes arrived
 * (workers/leftovers-sweep/unfinished-uploads.sweep.ts), so the quota frees itself.
 */
export const uploadQuotaBytes = 4 * maxUploadBytes;

export async function startUpload(
  sql: Sql,
  storage: Storage,
  auth: { workspaceId: string; personId: string },
  projectId: string,
  input: { kind: 'static' | 'container'; sizeBytes: number; direct?: boolean },
) {
  const project = await projectIn(sql, auth.workspaceId, projectId);
  await assertNotPaused(sql, project);
  if (input.sizeBytes > maxUploadBytes) throw refused(422, 'size', `an upload is at most ${maxUploadBytes} bytes (512 MB)`);
  const plan = await planNameOf(sql, auth.workspaceId);
  if (input.kind === 'container' && plan === 'free') throw planLimit('containers', plan);
  const row = await declareUpload(sql, {
    workspaceId: auth.workspaceId,
    projectId: project.id,
    kind: input.kind,
    sizeBytes: input.sizeBytes,
    createdBy: auth.personId,
    quotaBytes: uploadQuotaBytes,
  });
  if (!row) {
    throw refused(
      422,
      'size',
      `the workspace's uploads not yet built would hold more than ${uploadQuotaBytes} bytes (2 GB); build them, or wait a day for unused ones to be dropped`,
    );
  }
  const putUrl = `/api/uploads/${row.id}`;
  // Opt-in: a client that asks gets the object store's URLs; the api PUT stays for older ones.
  if (!input.direct) return { uploadId: row.id, putUrl };
  return { uploadId: row.id, putUrl, direct: await presignDirect(sql, storage, row.id, input.sizeBytes) };
}

/**
 * The PUT of an upload's bytes, streamed straight into the object store: never whole in memory
 * nor on the api's disk. The upload is held in `receiving` while the bytes flow, so a second PUT
 * is refused as used; a PUT that breaks off puts it back to `declared` for a retry.
 */
export async function receiveUpload(
  sql: Sql,
  storage: Storage,
  workspaceId: string,
  uploadId: string,
  contentLength: string | undefined,
  body: Readable,
) {
  const upload = await uploadIn(sql, workspaceId, uploadId);
  if (contentLength === undefined) throw new Refusal(411, 'length required');
  const declared = Number(upload.sizeBytes);
  if (!/^\d+$/.test(contentLength) || Number(contentLength) !== declared) {
    throw refused(422, 'size', `Content-Length must equal the declared size, ${declared} bytes`);
  }
  if (!(await moveUpload(sql, upload.id, 'declared', 'receiving'))) throw refused(422, 'used', 'this upload was already received');

  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      done(null, chunk);
    },
  });
  try {
    // pipeline, not pipe: a PUT that breaks off (the client goes away, or the api cuts it at its
    // shutdown deadline) must fail the store's write, or it would wait for the rest forever and
    // the upload would stay `receiving`.
    pipeline(body, counter, () => {});
    await storage.put(uploadKey(upload.id), counter, { size: declared, contentType: 'application/octet-stream' });
    // Measured again on storage (spec 3): what the store holds must be exactly what was declared.
    const stored = await storage.head(uploadKey(upload.id));
    if (seen !== declared || stored?.size !== declared)
      throw refused(422, 'size', `received ${stored?.size ?? seen} bytes, declared ${declared}`);
  } catch (err) {
    await storage.deletePrefix(uploadKey(upload.id)).catch(() => {});
    await moveUpload(sql, upload.id, 'receiving', 'declared');
    throw err;
  }
  await moveUpload(sql, upload.id, 'receiving', 'received');
}
