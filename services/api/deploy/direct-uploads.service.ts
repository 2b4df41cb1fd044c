import { type DirectUpload, directPartBytes } from '@demo-rooms/contract';
import type { Sql } from '../../core/infra/db.js';
import { refused } from '../../core/rules/errors.js';
import type { Storage } from '../../core/infra/storage.js';
import { moveUpload, setMultipartId, uploadIn, uploadKey } from '../../data/uploads.sql.js';

// Uploads straight to the object store (issue 32): the api signs URLs and checks the result, the
// bytes never pass through it. The store enforces each URL's exact length, type and expiry
// (infra/local/s3-sigv4.mjs locally, S3 itself in production).

/** How long a presigned upload URL is good for (s): long enough for 512 MB on a slow line. */
export const directUploadTtlSeconds = 60 * 60;
/** What every direct upload is stored as; signed into each URL, so the client must send it so. */
export const directContentType = 'application/octet-stream';

/**
 * Presigned URLs for a declared upload: one PUT up to 8 MiB, else a multipart upload the api
 * opens in the store (its id kept for completeUpload and the sweep) and a PUT per 8 MiB part.
 */
export async function presignDirect(sql: Sql, storage: Storage, uploadId: string, sizeBytes: number): Promise<DirectUpload> {
  const key = uploadKey(uploadId);
  const expiresAt = new Date(Date.now() + directUploadTtlSeconds * 1000).toISOString();
  const common = { contentType: directContentType, expiresAt };
  if (sizeBytes <= directPartBytes) {
    const url = await storage.presignPut(key, { size: sizeBytes, contentType: directContentType, expiresIn: directUploadTtlSeconds });
    return { ...common, multipart: false, parts: [{ partNumber: 1, url, sizeBytes }] };
  }
  const multipartId = await storage.startMultipart(key, directContentType);
  await setMultipartId(sql, uploadId, multipartId);
  const parts: DirectUpload['parts'] = [];
  for (let offset = 0, partNumber = 1; offset < sizeBytes; offset += directPartBytes, partNumber++) {
    const size = Math.min(directPartBytes, sizeBytes - offset);
    const url = await storage.presignPart(key, multipartId, { partNumber, size, expiresIn: directUploadTtlSeconds });
    parts.push({ partNumber, url, sizeBytes: size });
  }
  return { ...common, multipart: true, parts };
}

/**
 * Ends a direct upload: assembles a multipart one from the parts the client names, then measures
 * what the store holds (HeadObject). Only exactly the declared size and type counts as received;
 * anything else is deleted and answered 422, so no build can be made from it. The upload is held
 * in `receiving` meanwhile, so a second completeUpload (or an api PUT) is refused as used.
 */
export async function completeDirect(
  sql: Sql,
  storage: Storage,
  workspaceId: string,
  uploadId: string,
  parts: { partNumber: number; etag: string }[] | undefined,
): Promise<{ uploadId: string; sizeBytes: number }> {
  const upload = await uploadIn(sql, workspaceId, uploadId);
  const declared = Number(upload.sizeBytes);
  if (upload.multipartId && !parts?.length) throw refused(422, 'parts', 'a multipart upload is completed with the ETag of each part');
  if (parts && !ascending(parts.map((p) => p.partNumber))) throw refused(422, 'parts', 'parts are listed once each, in ascending order');
  if (!(await moveUpload(sql, upload.id, 'declared', 'receiving'))) throw refused(422, 'used', 'this upload was already received');
  const key = uploadKey(upload.id);
  try {
    if (upload.multipartId) {
      await storage.completeMultipart(key, upload.multipartId, parts!).catch((err) => {
        throw refused(422, 'parts', `the store could not assemble the parts: ${(err as Error).name ?? 'error'}`);
      });
    }
    const stored = await storage.head(key);
    if (!stored) throw refused(422, 'size', `the store holds no bytes for this upload; PUT them to its URLs first`);
    if (stored.size !== declared) throw refused(422, 'size', `the store holds ${stored.size} bytes, declared ${declared}`);
    if (stored.contentType !== directContentType)
      throw refused(422, 'type', `the store holds ${stored.contentType}, not ${directContentType}`);
  } catch (err) {
    // What the store holds was not accepted: it goes, and the upload is declared again (sent anew
    // to its URLs while they last, or swept). Parts not yet assembled stay for a retry.
    await storage.deletePrefix(key).catch(() => {});
    await moveUpload(sql, upload.id, 'receiving', 'declared');
    throw err;
  }
  await moveUpload(sql, upload.id, 'receiving', 'received');
  return { uploadId: upload.id, sizeBytes: declared };
}

function ascending(numbers: number[]): boolean {
  return numbers.every((n, i) => i === 0 || n > numbers[i - 1]!);
}
