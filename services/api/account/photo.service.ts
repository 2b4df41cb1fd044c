import { createHash } from 'node:crypto';
import type { Sql } from '../../core/infra/db.js';
import { notFound } from '../../core/rules/errors.js';
import { reencodeOrRefuse } from '../../core/rules/images.js';
import type { Storage } from '../../core/infra/storage.js';
import { isUuid } from '../../core/infra/ids.js';
import { sharesWorkspace } from '../../data/teams.sql.js';
import { forgetPhoto, photoOf, photoPrefix, rememberPhoto } from '../../data/people.sql.js';

// A person's photo (spec 2.10, 4.3 people photos, 8 images): PNG, JPEG or WebP judged by its
// bytes, up to 2 MB and 4096 pixels a side, stored re-encoded without metadata under
// photos/<person id>/<content hash>, served only to people who share a workspace with its owner.
// A photo is shown small: one larger than 1024 a side is kept shrunk to fit, and shrinks while it
// is decoded, so a 16 MP photo costs what a 1 MP one does (security-3 H1).

export const photoLimits = { maxBytes: 2 * 1024 * 1024, maxSide: 4096, maxPixels: 4096 * 4096, storedSide: 1024 };
/** Each photo's bytes at their own key: a reader never gets one photo's bytes with another's hash. */
export const photoKey = (personId: string, hash: string) => `${photoPrefix(personId)}${hash}`;

export async function savePhoto(sql: Sql, storage: Storage, personId: string, bytes: Buffer) {
  const image = await reencodeOrRefuse(bytes, { types: ['image/png', 'image/jpeg', 'image/webp'], ...photoLimits }, 'the photo', personId);
  const hash = createHash('sha256').update(image.bytes).digest('hex');
  await storage.put(photoKey(personId, hash), image.bytes, { contentType: image.type, size: image.bytes.length });
  const before = await rememberPhoto(sql, personId, hash);
  if (before && before !== hash) await storage.deletePrefix(photoKey(personId, before));
  return { type: image.type, width: image.width, height: image.height, bytes: image.bytes.length, hash };
}

/** The row forgets it first: a failed delete leaves an unreachable object, never a broken picture. */
export async function removePhoto(sql: Sql, storage: Storage, personId: string) {
  const before = await forgetPhoto(sql, personId);
  if (before) await storage.deletePrefix(photoKey(personId, before));
}

/** Where the photo of `userId` is, for `viewerId`: 404 when there is none or they share no workspace. */
export async function photoFor(sql: Sql, viewerId: string, userId: string) {
  if (!isUuid(userId)) throw notFound();
  const hash = await photoOf(sql, userId);
  if (!hash || !(await sharesWorkspace(sql, viewerId, userId))) throw notFound();
  return { key: photoKey(userId, hash), hash };
}
