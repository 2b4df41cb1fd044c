import { randomUUID } from 'node:crypto';
import { LINK_DEFAULT_DAYS, storableName } from '@demo-rooms/contract';
import type { Sql } from '../../core/infra/db.js';
import { refused, roleCannot } from '../../core/rules/errors.js';
import { hashSecret } from '../../core/infra/ids.js';
import { planLimit, planOf } from '../../core/rules/plans.js';
import { assertNotPaused } from '../../data/pauses.js';
import { projectIn } from '../../data/projects.sql.js';
import { recordHistory } from '../../data/room-history.sql.js';
import { planNameOf } from '../../data/workspaces.sql.js';
import { linkSealingKey, newLinkKey, openLinkKey, sealLinkKey } from './link-key.js';
import {
  countOpenLinks,
  insertLink,
  isExpired,
  linkIn,
  lockLinksOf,
  markLinkRevoked,
  rekeyOpenLink,
  setLinkCompany,
  type LinkRow,
} from '../../data/links.sql.js';
import { viewerHoursUsedUp } from '../../data/visits.sql.js';

/** Who is acting. A read-only connection may not see a link's address (spec 5.6). */
export interface Actor {
  workspaceId: string;
  personId: string;
  readOnly: boolean;
}

export interface CreateLinkInput {
  viewerName: string;
  viewerEmail?: string | null;
  viewerCompany?: string;
  /** Absent: the contract's default; null: never expires. */
  expiresInDays?: number | null;
}

/** A link with the key of its address, which only the caller of create, reveal or reissue sees. */
export interface LinkWithKey {
  link: LinkRow;
  key: string;
}

/** The workspace's plan; 402 `links` when it has no private links. */
async function planWithLinks(sql: Sql, workspaceId: string) {
  const plan = await planNameOf(sql, workspaceId);
  if (!planOf(plan).privateLinks) throw planLimit('links', plan);
  return plan;
}

/**
 * createLink: a link for one named viewer. Nothing is sent to the email. Refused (in this order)
 * to a read-only connection, while the platform pauses the project (423), on a plan without
 * private links or beyond its open links per project, and once the month's viewer-hours are used.
 */
export async function createLink(
  sql: Sql,
  appSecret: string,
  actor: Actor,
  projectId: string,
  input: CreateLinkInput,
): Promise<LinkWithKey> {
  if (actor.readOnly) throw roleCannot('createLink');
  const project = await projectIn(sql, actor.workspaceId, projectId);
  await assertNotPaused(sql, project);
  const plan = await planWithLinks(sql, actor.workspaceId);
  if (await viewerHoursUsedUp(sql, actor.workspaceId, plan, 'links')) throw planLimit('viewerHours', plan);

  // One default for every client (issue 29): a link lasts LINK_DEFAULT_DAYS unless asked otherwise,
  // and lasts for ever only when asked for with `null`.
  const days = input.expiresInDays === undefined ? LINK_DEFAULT_DAYS : input.expiresInDays;
  const id = randomUUID();
  const key = newLinkKey();
  const sealed = sealLinkKey(linkSealingKey(appSecret), id, key);
  const link = (await sql.begin(async (tx) => {
    // Serialise creations per project, so racing requests cannot both pass the plan's count.
    await lockLinksOf(tx, project.id);
    if ((await countOpenLinks(tx, project.id)) >= planOf(plan).linksPerProject) throw planLimit('links', plan);
    return insertLink(tx, {
      id,
      workspaceId: actor.workspaceId,
      projectId: project.id,
      // Cleaned here too, not only by the route's schema: every caller of the service gets one-line names (issue 45).
      viewerName: storableName(input.viewerName),
      viewerEmail: input.viewerEmail ?? null,
      viewerCompany: input.viewerCompany ? storableName(input.viewerCompany) : null,
      keyHash: hashSecret(key),
      keySealed: sealed,
      createdBy: actor.personId,
      expiresInDays: days,
    });
  })) as LinkRow;
  return { link, key };
}

/**
 * updateLink: what the link says of its viewer (their company, for a personalised build). Left
 * as it is when the body does not name it; a read-only connection may not change it.
 */
export async function updateLink(sql: Sql, actor: Actor, linkId: string, input: { viewerCompany?: string | null }): Promise<LinkRow> {
  if (actor.readOnly) throw roleCannot('updateLink');
  const link = await linkIn(sql, actor.workspaceId, linkId);
  if (input.viewerCompany === undefined) return link;
  return setLinkCompany(sql, link.id, input.viewerCompany === null ? null : storableName(input.viewerCompany));
}

/**
 * revokeLink: the link stops opening the room at once and for good. Revoking again changes
 * nothing. The sealed key is dropped: a revoked address is never shown again.
 */
export async function revokeLink(sql: Sql, actor: Actor, linkId: string): Promise<LinkRow> {
  const link = await linkIn(sql, actor.workspaceId, linkId);
  return markLinkRevoked(sql, link.id);
}

function assertOpen(link: LinkRow): void {
  if (link.revokedAt) throw refused(422, 'revoked', 'this link was revoked');
  if (isExpired(link)) throw refused(422, 'expired', 'this link has expired');
}

/** The address cannot be shown again: only a hash of the key was kept (or what was kept no longer opens). */
const unrecoverable = () => refused(422, 'unrecoverable', "this link's address cannot be shown again; reissue it for a new one");

/** revealLink: the address again, recorded as link.copy. */
export async function revealLink(sql: Sql, appSecret: string, actor: Actor, linkId: string): Promise<LinkWithKey> {
  if (actor.readOnly) throw roleCannot('revealLink');
  const link = await linkIn(sql, actor.workspaceId, linkId);
  assertOpen(link);
  if (!link.keySealed) throw unrecoverable();
  let key: string;
  try {
    key = openLinkKey(linkSealingKey(appSecret), link.id, link.keySealed);
  } catch {
    // Sealed under another APP_SECRET, or altered: as lost as a key that was never kept.
    throw unrecoverable();
  }
  if (!hashSecret(key).equals(link.keyHash)) throw unrecoverable();
  await recordHistory(sql, {
    workspaceId: link.workspaceId,
    projectId: link.projectId,
    kind: 'link.copy',
    byPerson: actor.personId,
    linkId: link.id,
    viewer: link.viewerName,
  });
  return { link, key };
}

/**
 * reissueLink: the link opens under a new key; the old address stops at once (nothing else
 * knows it). Visits, answers and comments stay with the link. Recorded as link.reissue. Not
 * refused while the platform pauses the project: it makes no new link.
 */
export async function reissueLink(sql: Sql, appSecret: string, actor: Actor, linkId: string): Promise<LinkWithKey> {
  if (actor.readOnly) throw roleCannot('reissueLink');
  const link = await linkIn(sql, actor.workspaceId, linkId);
  assertOpen(link);
  // A link made on a paid plan does not open on one without private links: a new address would not either.
  await planWithLinks(sql, actor.workspaceId);
  const key = newLinkKey();
  const sealed = sealLinkKey(linkSealingKey(appSecret), link.id, key);
  const row = (await sql.begin(async (tx) => {
    const updated = await rekeyOpenLink(tx, link.id, { hash: hashSecret(key), sealed });
    // Revoked or expired since it was read: refuse as if it had been so all along.
    if (!updated) {
      assertOpen(await linkIn(tx, actor.workspaceId, link.id));
      throw refused(422, 'expired', 'this link has expired');
    }
    await recordHistory(tx, {
      workspaceId: link.workspaceId,
      projectId: link.projectId,
      kind: 'link.reissue',
      byPerson: actor.personId,
      linkId: link.id,
      viewer: link.viewerName,
    });
    return updated;
  })) as LinkRow;
  return { link: row, key };
}
