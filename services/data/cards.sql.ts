import type { Db, Sql } from '../core/infra/db.js';

// Community cards (spec 2.9, 3 Card; migrations/00014): the words and cover a project is listed
// with, its status, and what the checks found. A card is read with its project's slug and live
// build, which decide its public address and whether the public room shows it.

export type CardStatus = 'draft' | 'listed' | 'blocked' | 'pulled' | 'pending';
export type Finding = { part: string; reason: string; detail: string };

export interface CardRow {
  projectId: string;
  workspaceId: string;
  title: string;
  line: string;
  status: CardStatus;
  rejectReason: string | null;
  blocked: Finding[];
  warnings: Finding[];
  /** The cover shown: on a listed card, the one approved (or shown before it was listed). */
  coverHash: string | null;
  coverType: string | null;
  /** A new cover of a listed or pending card, held back until an operator approves it (00023). */
  heldCoverHash: string | null;
  heldCoverType: string | null;
  heldCoverAt: Date | null;
  /** Whether a cover is held (a column computed from heldCoverHash). */
  coverPending: boolean;
  listedBuildId: string | null;
  listedAt: Date | null;
  submittedAt: Date | null;
  reviewedAt: Date | null;
  takenOffAt: Date | null;
  creditPersonId: string | null;
  /** The credited person's handle, when they have one. */
  credit: string | null;
  updatedAt: Date | null;
  // Of the project:
  slug: string;
  liveBuildId: string | null;
  takenDownAt: Date | null;
}

/** Where a card's covers live in the object store, one object per content hash. */
export const coverPrefix = (projectId: string) => `covers/${projectId}/`;
export const coverKey = (projectId: string, hash: string) => `${coverPrefix(projectId)}${hash}`;

const withProject = (sql: Db) => sql`
  select c.*, p.slug, p.live_build_id, p.taken_down_at, cp.handle as credit
  from cards c join projects p on p.id = c.project_id left join people cp on cp.id = c.credit_person_id`;

export async function cardOf(sql: Db, projectId: string, lock = false): Promise<CardRow | null> {
  const [row] = await sql<CardRow[]>`${withProject(sql)} where c.project_id = ${projectId} ${lock ? sql`for update of c` : sql``}`;
  return row ?? null;
}

/** Saves the words; a new card starts as a draft. */
export async function saveCardWords(
  tx: Db,
  c: { projectId: string; workspaceId: string; title: string; line: string; creditPersonId?: string | null },
) {
  const keepCredit = c.creditPersonId === undefined;
  await tx`
    insert into cards (project_id, workspace_id, title, line, credit_person_id, updated_at)
    values (${c.projectId}, ${c.workspaceId}, ${c.title}, ${c.line}, ${c.creditPersonId ?? null}, now())
    on conflict (project_id) do update set title = excluded.title, line = excluded.line, updated_at = now(),
      credit_person_id = case when ${keepCredit} then cards.credit_person_id else excluded.credit_person_id end`;
}

/** Stores what a check decided: the status and its findings (a listing also records its build). */
export async function setCardOutcome(
  tx: Db,
  projectId: string,
  o: {
    status: CardStatus;
    blocked: Finding[];
    warnings: Finding[];
    listedBuildId?: string | null;
    submitted?: boolean;
    reviewed?: boolean;
    rejectReason?: string | null;
  },
) {
  const listing = o.status === 'listed';
  await tx`
    update cards set
      status = ${o.status},
      blocked = ${JSON.stringify(o.blocked)}::text::jsonb,
      warnings = ${JSON.stringify(o.warnings)}::text::jsonb,
      reject_reason = ${o.rejectReason ?? null},
      listed_build_id = case when ${listing} then coalesce(${o.listedBuildId ?? null}::uuid, listed_build_id) else listed_build_id end,
      listed_at = case when ${listing} then coalesce(listed_at, now()) else null end,
      submitted_at = case when ${o.submitted ?? false} then now() else submitted_at end,
      reviewed_at = case when ${o.reviewed ?? false} then now() else reviewed_at end,
      updated_at = now()
    where project_id = ${projectId}`;
}

/** Off the community by the platform (pulled, taken down): a new listing then waits for review. */
export async function takeCardOff(tx: Db, projectId: string, reason: string) {
  await tx`
    update cards set status = 'pulled', reject_reason = ${reason}, listed_at = null, taken_off_at = now(), reviewed_at = now(), updated_at = now()
    where project_id = ${projectId}`;
}

export type StoredCover = { hash: string; type: string };

/** The cover shown from now on (or none); any held cover is dropped with it. */
export async function setCover(tx: Db, projectId: string, cover: StoredCover | null) {
  await tx`
    update cards set cover_hash = ${cover?.hash ?? null}, cover_type = ${cover?.type ?? null},
      held_cover_hash = null, held_cover_type = null, held_cover_at = null, updated_at = now()
    where project_id = ${projectId}`;
}

/** A new cover held back for the operator (or none held); the one shown stays. */
export async function holdCover(tx: Db, projectId: string, cover: StoredCover | null) {
  await tx`
    update cards set held_cover_hash = ${cover?.hash ?? null}, held_cover_type = ${cover?.type ?? null},
      held_cover_at = ${cover ? tx`now()` : null}, updated_at = now()
    where project_id = ${projectId}`;
}

export interface HeldCoverRow {
  projectId: string;
  workspaceId: string;
  name: string;
  slug: string;
  title: string;
  status: CardStatus;
  heldCoverHash: string;
  heldCoverType: string;
  heldCoverAt: Date;
}

/** The covers waiting for the operator, oldest first; by slug when one is named. */
export function heldCovers(sql: Db, slug?: string) {
  return sql<HeldCoverRow[]>`
    select c.project_id, p.workspace_id, p.name, p.slug, c.title, c.status, c.held_cover_hash, c.held_cover_type, c.held_cover_at
    from cards c join projects p on p.id = c.project_id
    where c.held_cover_hash is not null and p.deleted_at is null ${slug === undefined ? sql`` : sql`and p.slug = ${slug}`}
    order by c.held_cover_at, p.slug`;
}

export interface PublicCardRow {
  projectId: string;
  workspaceId: string;
  slug: string;
  title: string;
  line: string;
  coverHash: string | null;
  coverType: string | null;
  listedAt: Date;
  credit: string | null;
}

/**
 * The community's listings, newest listing first: listed cards whose project is live with the
 * build it was listed with, neither taken down nor in a suspended workspace.
 */
export function publicListings(sql: Sql, filter: { slug?: string; creditTo?: string } = {}) {
  return sql<PublicCardRow[]>`
    select c.project_id, p.workspace_id, p.slug, c.title, c.line, c.cover_hash, c.cover_type, c.listed_at, cp.handle as credit
    from cards c join projects p on p.id = c.project_id join workspaces w on w.id = p.workspace_id
      left join people cp on cp.id = c.credit_person_id
    where c.status = 'listed' and p.deleted_at is null and p.taken_down_at is null and p.over_limit_at is null and w.suspended_at is null
      and p.live_build_id is not null and p.live_build_id = c.listed_build_id
      ${filter.slug === undefined ? sql`` : sql`and p.slug = ${filter.slug}`}
      ${filter.creditTo === undefined ? sql`` : sql`and cp.handle = ${filter.creditTo}`}
    order by c.listed_at desc, p.slug`;
}

/** Whether the project's card is on the community or waiting to be: listed or pending. */
export async function cardOnCommunity(db: Db, projectId: string): Promise<boolean> {
  const [card] = await db`select 1 from cards where project_id = ${projectId} and status in ('listed', 'pending')`;
  return Boolean(card);
}

/** The card leaves the community and stays as a draft (unlistProject). */
export async function unlistCard(db: Db, projectId: string): Promise<void> {
  await db`update cards set status = 'draft', listed_at = null, updated_at = now() where project_id = ${projectId} and status in ('listed', 'pending')`;
}

/** Cards waiting for the operator's review, oldest first, of projects not deleted. */
export function pendingCards(db: Db) {
  return db<{ slug: string; title: string; line: string; submittedAt: Date }[]>`
    select p.slug, c.title, c.line, c.submitted_at from cards c join projects p on p.id = c.project_id
    where c.status = 'pending' and p.deleted_at is null order by c.submitted_at`;
}

/** The operator let the card back (approved, or an appeal upheld): a later listing no longer waits for review. */
export async function clearTakenOff(tx: Db, projectId: string, words?: { title: string; line: string }): Promise<void> {
  if (words) await tx`update cards set title = ${words.title}, line = ${words.line}, taken_off_at = null where project_id = ${projectId}`;
  else await tx`update cards set taken_off_at = null where project_id = ${projectId}`;
}
