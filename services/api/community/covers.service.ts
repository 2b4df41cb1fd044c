import { buffer } from 'node:stream/consumers';
import { createHash } from 'node:crypto';
import type { Config } from '../../core/infra/config.js';
import type { Sql } from '../../core/infra/db.js';
import { notFound, refused } from '../../core/rules/errors.js';
import { reencodeOrRefuse, type CheckedImage } from '../../core/rules/images.js';
import type { Storage } from '../../core/infra/storage.js';
import { buildFilesPrefix, liveBuildKind } from '../../data/builds.sql.js';
import { cardOf, coverKey, holdCover, publicListings, setCover, type CardStatus } from '../../data/cards.sql.js';
import { projectIn, type ProjectRow } from '../../data/projects.sql.js';
import { readCard } from './cards.service.js';

// A card's cover (spec 2.9, 4.5): PNG, JPEG or WebP judged by its bytes, up to 1 MB, uploaded or
// copied on the platform from a file of the live static build, and stored re-encoded without
// metadata at covers/<project>/<content hash>. Its own check (the bytes decode as one of those
// types, within the limits) runs first: a cover that fails is refused (422 file) and the one
// before stays. A cover that passes replaces the one shown at once while the card is not public
// (draft, blocked, pulled) and never was; on a listed or pending card, or one listed before, it is
// held back (coverPending) until an operator approves it in `npm run ops -- review`, and the
// public listing keeps the one before. "Listed before" closes unlist → new cover → relist, which
// would otherwise publish a cover no one looked at (issue 28's note).
// A cover larger than 2048 a side is kept shrunk to fit, shrinking while it is decoded, so the
// decode costs what a 4 MP picture does (security-3 H1).

export const coverLimits = { maxBytes: 1024 * 1024, maxSide: 4096, maxPixels: 4096 * 4096, storedSide: 2048 };
const coverTypes = ['image/png', 'image/jpeg', 'image/webp'] as const;

/** `workspaceId` takes its turn at the decode slot (images.ts). */
const checkedCover = (bytes: Buffer, what: string, workspaceId: string) =>
  reencodeOrRefuse(bytes, { types: [...coverTypes], ...coverLimits }, what, workspaceId);

async function cardFor(sql: Sql, workspaceId: string, projectId: string) {
  const project = await projectIn(sql, workspaceId, projectId);
  const card = await cardOf(sql, project.id);
  if (!card) throw refused(422, 'unfinished', 'save a card (title and line) first');
  return { project, card };
}

/** Cards whose cover the public listing shows, or will once an operator approves the card. */
const publicStatuses: CardStatus[] = ['listed', 'pending'];

/** Whether a new cover of this card waits for review: it is public, or was (a listing records its build). */
const coverReviewed = (card: { status: CardStatus; listedBuildId: string | null }) =>
  publicStatuses.includes(card.status) || card.listedBuildId !== null;

/**
 * Stores a checked cover, then shows it or holds it back (see above). Objects no row names any
 * longer are deleted after the rows changed, so a row never names a missing object.
 */
async function replaceCover(sql: Sql, storage: Storage, project: ProjectRow, image: CheckedImage) {
  const hash = createHash('sha256').update(image.bytes).digest('hex');
  await storage.put(coverKey(project.id, hash), image.bytes, { contentType: image.type, size: image.bytes.length });
  const unused = await sql.begin(async (tx) => {
    const card = (await cardOf(tx, project.id, true))!;
    const cover = { hash, type: image.type };
    if (coverReviewed(card) && hash !== card.coverHash) {
      await holdCover(tx, project.id, cover);
      return [card.heldCoverHash];
    }
    await setCover(tx, project.id, cover);
    return [card.coverHash, card.heldCoverHash];
  });
  await deleteCovers(storage, project.id, unused.filter((h) => h && h !== hash) as string[]);
}

async function deleteCovers(storage: Storage, projectId: string, hashes: string[]) {
  for (const h of new Set(hashes)) await storage.deletePrefix(coverKey(projectId, h));
}

export async function uploadCover(sql: Sql, storage: Storage, config: Config, workspaceId: string, projectId: string, bytes: Buffer) {
  const { project } = await cardFor(sql, workspaceId, projectId);
  await replaceCover(sql, storage, project, await checkedCover(bytes, 'the cover', project.workspaceId));
  return readCard(sql, config, workspaceId, project.id);
}

/** Removes the cover shown and the one held, if any: taking a cover away needs no review. */
export async function removeCover(sql: Sql, storage: Storage, config: Config, workspaceId: string, projectId: string) {
  const project = await projectIn(sql, workspaceId, projectId);
  const card = await cardOf(sql, project.id);
  if (card?.coverHash || card?.heldCoverHash) {
    await setCover(sql, project.id, null);
    await deleteCovers(storage, project.id, [card.coverHash, card.heldCoverHash].filter(Boolean) as string[]);
  }
  return readCard(sql, config, workspaceId, project.id);
}

/** A file of the live static build, by its path; 422 file when there is none to read. */
async function buildFile(sql: Sql, storage: Storage, project: ProjectRow, path: string) {
  if (!project.liveBuildId) throw refused(422, 'file', 'the project has no live build');
  if ((await liveBuildKind(sql, project)) !== 'static')
    throw refused(422, 'file', 'a container build is never unpacked, so its files cannot be read');
  const clean = path.replace(/^\/+/, '');
  if (!clean || clean.split('/').some((s) => s === '..' || s === '.' || s === ''))
    throw refused(422, 'file', 'name a file of the build, such as /img/cover.png');
  const object = await storage.get(buildFilesPrefix(project.liveBuildId) + clean);
  if (!object) throw refused(422, 'file', `the live build has no file ${path}`);
  if (object.size > coverLimits.maxBytes) {
    object.body.destroy();
    throw refused(422, 'file', `${path} is ${object.size} bytes; at most ${coverLimits.maxBytes} are taken`);
  }
  return buffer(object.body);
}

/** checkBuildCover: whether a file of the live build would do as the cover, read by its bytes. */
export async function checkBuildCover(sql: Sql, storage: Storage, workspaceId: string, projectId: string, path: string) {
  const project = await projectIn(sql, workspaceId, projectId);
  const bytes = await buildFile(sql, storage, project, path);
  const image = await checkedCover(bytes, path, project.workspaceId);
  return { path, type: image.type, bytes: bytes.length };
}

/** coverFromBuild: the file copied on the platform, checked and held back as an upload is. */
export async function coverFromBuild(sql: Sql, storage: Storage, config: Config, workspaceId: string, projectId: string, path: string) {
  const { project } = await cardFor(sql, workspaceId, projectId);
  const image = await checkedCover(await buildFile(sql, storage, project, path), path, project.workspaceId);
  await replaceCover(sql, storage, project, image);
  return readCard(sql, config, workspaceId, project.id);
}

/** Where the cover of a listed project is, for anyone; 404 when not listed or without one. */
export async function publicCover(sql: Sql, slug: string) {
  const [listed] = await publicListings(sql, { slug });
  if (!listed?.coverHash) throw notFound();
  return { key: coverKey(listed.projectId, listed.coverHash), type: listed.coverType!, hash: listed.coverHash };
}
