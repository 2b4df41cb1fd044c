import type { Sql } from '../../services/core/infra/db.js';
import type { Storage } from '../../services/core/infra/storage.js';
import { releaseDeploy, staleReservations } from '../../services/data/builds.sql.js';
import { deleteUploads, unfinishedUploads, uploadKey } from '../../services/data/uploads.sql.js';

/** An upload whose bytes have not arrived this many hours after it was declared, or that arrived and made no build, is dropped. */
export const unfinishedUploadHours = 24;

/**
 * Uploads that will never make a build, with their bytes: declared and never received (whatever
 * a broken-off PUT left in the store, and the parts of a direct multipart upload never completed), received and never built, or refused by the archive check
 * (its bytes were deleted at the refusal; this catches a deletion that failed), each 24 hours on.
 * One stuck in `receiving` (its api died mid-PUT and could not put it back) gets another 24 hours,
 * so a PUT that began just before the deadline is never cut off while its bytes still flow.
 * The deploy attempts made with a swept upload keep counting (their link to it is cut, not
 * deleted: migrations/00022).
 *
 * An upload left `building` by a createBuild that died while it waited is given back first: its
 * reservation, a day old and neither made nor given up, is given up (a failed attempt, as any
 * given up), which puts the upload back to `received` with its old time, so this same sweep drops it.
 *
 * Each batch holds its rows locked (FOR UPDATE) while their bytes are deleted: a PUT starting
 * meanwhile waits on the lock, then finds the upload gone (422) instead of filling a deleted
 * upload. Bytes go before rows, so a sweep that dies halfway leaves rows for the next one.
 */
export async function sweepUnfinishedUploads(sql: Sql, storage: Storage, batch = 100): Promise<number> {
  for (const buildId of await staleReservations(sql, unfinishedUploadHours)) await releaseDeploy(sql, buildId);
  let removed = 0;
  for (;;) {
    const n = await sql.begin(async (tx) => {
      const rows = await unfinishedUploads(tx, unfinishedUploadHours, batch);
      for (const { id, multipartId } of rows) {
        // A direct upload's parts sit in the store apart from objects until their upload is aborted.
        if (multipartId) await storage.abortMultipart(uploadKey(id), multipartId);
        await storage.deletePrefix(uploadKey(id));
      }
      if (rows.length)
        await deleteUploads(
          tx,
          rows.map((r) => r.id),
        );
      return rows.length;
    });
    removed += n;
    if (n < batch) return removed;
  }
}
