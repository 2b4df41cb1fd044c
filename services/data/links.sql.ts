import type { LinkStage } from '@demo-rooms/contract';
import type { Db, Sql } from '../core/infra/db.js';
import { notFound } from '../core/rules/errors.js';
import { hashSecret, isUuid } from '../core/infra/ids.js';
import type { ProjectRow } from './projects.sql.js';

export interface LinkRow {
  id: string;
  workspaceId: string;
  projectId: string;
  viewerName: string;
  viewerEmail: string | null;
  /** The viewer's company, for a build that personalises its copies (migrations/00029). */
  viewerCompany: string | null;
  keyHash: Buffer;
  /** Null when the address cannot be shown again (made before 1 October 2026, or revoked). */
  keySealed: Buffer | null;
  stage: LinkStage;
  createdBy: string | null;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  reissuedAt: Date | null;
  openedAt: Date | null;
  /** When a visit last started through it. */
  lastOpenedAt: Date | null;
  /** The builder's own stage, winning over `stage` (the evidence's) while set. */
  placedStage: LinkStage | null;
  placedAt: Date | null;
  outcome: 'won' | 'lost' | 'later' | null;
  followUpOn: string | null;
  followUpNote: string | null;
}

/** The stage a link shows: the builder's when placed, else the evidence's. */
export const stageOf = (l: Pick<LinkRow, 'stage' | 'placedStage'>): LinkStage => l.placedStage ?? l.stage;

/** A link is open while neither revoked nor past its expiry. */
export const isExpired = (l: Pick<LinkRow, 'expiresAt'>, now = new Date()) => l.expiresAt !== null && l.expiresAt <= now;

/** The link with this id in this workspace, of a project not deleted; 404 otherwise. */
export async function linkIn(sql: Db, workspaceId: string, linkId: string): Promise<LinkRow> {
  if (!isUuid(linkId)) throw notFound();
  const [row] = await sql<LinkRow[]>`
    select l.* from links l join projects p on p.id = l.project_id
    where l.id = ${linkId} and l.workspace_id = ${workspaceId} and p.deleted_at is null`;
  if (!row) throw notFound();
  return row;
}

/** The project's links, newest first. */
export function linksOf(sql: Sql, projectId: string) {
  return sql<LinkRow[]>`select * from links where project_id = ${projectId} order by created_at desc, id desc`;
}

/** Links that still open the room: not revoked, not expired. Only these count against the plan. */
export async function countOpenLinks(sql: Db, projectId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from links
    where project_id = ${projectId} and revoked_at is null and (expires_at is null or expires_at > now())`;
  return row.n;
}

/** Keys are 39 characters today; anything far longer cannot be one and is not hashed. */
const maxKeyLength = 200;

/**
 * For the room: the open link whose address carries `key`, with its project; null when the key is
 * unknown, was reissued away, or its link is revoked or expired, or its project deleted. Whether
 * the room then admits anyone (plan without private links, platform or owner pause, viewer-hours)
 * is the room's decision, not this lookup's.
 */
export async function resolveLinkKey(sql: Sql, key: string): Promise<{ link: LinkRow; project: ProjectRow } | null> {
  if (!key || key.length > maxKeyLength) return null;
  const [link] = await sql<LinkRow[]>`
    select * from links
    where key_hash = ${hashSecret(key)} and revoked_at is null and (expires_at is null or expires_at > now())`;
  if (!link) return null;
  const [project] = await sql<ProjectRow[]>`select * from projects where id = ${link.projectId} and deleted_at is null`;
  return project ? { link, project } : null;
}

/**
 * Who sent a link, as the room's who-are-you prompt names them: the name of the person who made
 * it, else its workspace's name (a person without a chosen name, or one since removed).
 */
export async function linkSenderName(sql: Sql, linkId: string): Promise<string | null> {
  const [row] = await sql<{ sender: string }[]>`
    select coalesce(nullif(p.name, ''), w.name) as sender
    from links l join workspaces w on w.id = l.workspace_id left join people p on p.id = l.created_by
    where l.id = ${linkId}`;
  return row?.sender ?? null;
}

/** The company the link names its viewer at (the room's who-are-you starts with it); null when none. */
export async function linkCompanyOf(sql: Sql, linkId: string): Promise<string | null> {
  const [row] = await sql<{ viewerCompany: string | null }[]>`select viewer_company from links where id = ${linkId}`;
  return row?.viewerCompany ?? null;
}

/** Holds the project's link creations for the rest of the transaction, so racing requests cannot both pass the plan's count. */
export async function lockLinksOf(tx: Db, projectId: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(hashtext('links:' || ${projectId}))`;
}

export async function insertLink(
  tx: Db,
  l: {
    id: string;
    workspaceId: string;
    projectId: string;
    viewerName: string;
    viewerEmail: string | null;
    viewerCompany: string | null;
    keyHash: Buffer;
    keySealed: Buffer;
    createdBy: string;
    expiresInDays: number | null;
  },
): Promise<LinkRow> {
  const [row] = await tx<LinkRow[]>`
    insert into links (id, workspace_id, project_id, viewer_name, viewer_email, viewer_company, key_hash, key_sealed, created_by, expires_at)
    values (${l.id}, ${l.workspaceId}, ${l.projectId}, ${l.viewerName}, ${l.viewerEmail}, ${l.viewerCompany},
            ${l.keyHash}, ${l.keySealed}, ${l.createdBy},
            ${l.expiresInDays === null ? null : tx`now() + make_interval(days => ${l.expiresInDays})`})
    returning *`;
  return row;
}

/** The viewer's company on the link; null clears it. */
export async function setLinkCompany(db: Db, linkId: string, company: string | null): Promise<LinkRow> {
  const [row] = await db<LinkRow[]>`update links set viewer_company = ${company} where id = ${linkId} returning *`;
  return row;
}

/** Revoked now, or when it was first (revoking again changes nothing); the sealed key is dropped. */
export async function markLinkRevoked(db: Db, linkId: string): Promise<LinkRow> {
  const [row] = await db<LinkRow[]>`
    update links set revoked_at = coalesce(revoked_at, now()), key_sealed = null where id = ${linkId} returning *`;
  return row;
}

/** A new key for a link still open (not revoked, not expired); null when it no longer is. */
export async function rekeyOpenLink(db: Db, linkId: string, key: { hash: Buffer; sealed: Buffer }): Promise<LinkRow | null> {
  const [updated] = await db<LinkRow[]>`
    update links set key_hash = ${key.hash}, key_sealed = ${key.sealed}, reissued_at = now()
    where id = ${linkId} and revoked_at is null and (expires_at is null or expires_at > now())
    returning *`;
  return updated ?? null;
}
