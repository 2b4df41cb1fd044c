import { writeFile } from 'node:fs/promises';
import { buffer } from 'node:stream/consumers';
import type { Db, Sql } from '../core/infra/db.js';
import type { Storage } from '../core/infra/storage.js';
import { recordDecision } from '../data/appeals.sql.js';
import { cardOf, coverKey, heldCovers, holdCover, setCover } from '../data/cards.sql.js';
import { noticeWorkspace } from '../data/notices.sql.js';

// `npm run ops -- review` for covers (issue 28, M5): a new cover of a listed or pending card is
// held back until the operator looks at it (`cover <slug> <file>` writes it out) and approves it,
// which shows it on the community, or rejects it, which deletes it, keeps the cover shown before
// and tells the workspace's people why. Each decision is a row of review_decisions.

/** The lines of the review list for the held covers. */
export async function heldCoverLines(sql: Sql): Promise<string[]> {
  const held = await heldCovers(sql);
  return [
    `held covers (${held.length}): cover <slug> <file> | approve-cover <slug> | reject-cover <slug> <reason>`,
    ...held.map(
      (c) =>
        `  ${c.slug}  "${c.title}" (${c.status})  ${c.heldCoverType}  ${coverKey(c.projectId, c.heldCoverHash)}  (since ${c.heldCoverAt.toISOString()})`,
    ),
  ];
}

async function heldCoverOf(sql: Sql, slug: string) {
  const [held] = await heldCovers(sql, slug);
  if (!held) throw new Error(`${slug} has no cover waiting for review`);
  return held;
}

/** Writes the held cover to a file, for the operator to look at before deciding. */
export async function saveHeldCover(sql: Sql, storage: Storage, slug: string, file: string): Promise<string> {
  const held = await heldCoverOf(sql, slug);
  const object = await storage.get(coverKey(held.projectId, held.heldCoverHash));
  if (!object) throw new Error(`${slug}'s held cover is missing from the object store`);
  await writeFile(file, await buffer(object.body));
  return `${slug}: held cover (${held.heldCoverType}) written to ${file}`;
}

/** Locks the card and checks that the cover decided on is still the one held. */
async function lockHeld(tx: Db, projectId: string, hash: string, slug: string) {
  const card = await cardOf(tx, projectId, true);
  if (card?.heldCoverHash !== hash) throw new Error(`${slug}'s held cover changed meanwhile: list again`);
  return card;
}

export async function approveCover(sql: Sql, storage: Storage, slug: string): Promise<string> {
  const held = await heldCoverOf(sql, slug);
  const before = await sql.begin(async (tx) => {
    const card = await lockHeld(tx, held.projectId, held.heldCoverHash, slug);
    await setCover(tx, held.projectId, { hash: held.heldCoverHash, type: held.heldCoverType });
    await recordDecision(tx, { projectId: held.projectId, decision: 'approve', note: `cover ${held.heldCoverHash}` });
    return card.coverHash;
  });
  if (before && before !== held.heldCoverHash) await storage.deletePrefix(coverKey(held.projectId, before));
  return `${slug}: cover approved`;
}

export async function rejectCover(sql: Sql, storage: Storage, slug: string, reason: string): Promise<string> {
  const held = await heldCoverOf(sql, slug);
  await sql.begin(async (tx) => {
    await lockHeld(tx, held.projectId, held.heldCoverHash, slug);
    await holdCover(tx, held.projectId, null);
    await recordDecision(tx, { projectId: held.projectId, decision: 'reject', note: `cover ${held.heldCoverHash}: ${reason}` });
    // The spec's notice kinds have none for a cover: a refusal by a check is listing.blocked.
    await noticeWorkspace(tx, {
      workspaceId: held.workspaceId,
      projectId: held.projectId,
      kind: 'listing.blocked',
      href: null,
      title: `${held.name}: the new cover was not approved`,
      body: `Reason: ${reason}. The cover shown before stays; you can upload another.`,
    });
  });
  await storage.deletePrefix(coverKey(held.projectId, held.heldCoverHash));
  return `${slug}: cover rejected`;
}
