import type { Config } from '../../core/infra/config.js';
import type { Sql } from '../../core/infra/db.js';
import { refused, Refusal } from '../../core/rules/errors.js';
import type { Db } from '../../core/infra/db.js';
import { planLimit, planOf } from '../../core/rules/plans.js';
import type { Storage } from '../../core/infra/storage.js';
import { latestAppeal, insertAppeal, type AppealRow } from '../../data/appeals.sql.js';
import { cardOf, saveCardWords, setCardOutcome, unlistCard, type CardRow } from '../../data/cards.sql.js';
import { profileOf } from '../../data/profiles.sql.js';
import { countActions, lockFor, recordAction } from '../../data/community-actions.sql.js';
import { noticeWorkspace } from '../../data/notices.sql.js';
import { projectById, projectIn, type ProjectRow } from '../../data/projects.sql.js';
import { liveBuildKind } from '../../data/builds.sql.js';
import { planNameOf } from '../../data/workspaces.sql.js';
import type { SessionAuth } from '../../data/sessions.sql.js';
import { roomPagesToCheck, shownWordsOf } from '../../data/listing-subjects.sql.js';
import { buildPageFindings, pageCaps } from './build-page-findings.js';
import { checkSlugWords, checkWords, merge, type Checked } from './listing-checks.js';
import { checkPagesOffLoop } from './page-check-pool.js';

// A project's community card (spec 2.9, 3 Card, 4.5): its words, its listing and what the checks
// found, appeals. The words are checked whenever they would be shown (listing, or saving a listed
// card), as are the project's name, room pages, brand name and credited bio (listing, or changing
// one of them on a listed project); the live build's pages when it is listed, once per build.

export const limits = { editsADay: 10, listingsADay: 3, appealsIn30Days: 3 };

const publicUrlOf = (config: Config, slug: string) => `${config.publicUrl}/p/${slug}`;

/** The card as the builder reads it; an unsaved card is an empty draft (`updatedAt` null). */
export function cardView(config: Config, project: ProjectRow, card: CardRow | null, appeal: AppealRow | null) {
  const status = card?.status ?? 'draft';
  const takenOff = Boolean(card?.takenOffAt);
  return {
    projectId: project.id,
    title: card?.title ?? '',
    line: card?.line ?? '',
    cover: card?.coverHash
      ? {
          type: card.coverType,
          hash: card.coverHash,
          url: `${config.publicUrl}/api/community/projects/${project.slug}/cover?v=${card.coverHash.slice(0, 16)}`,
        }
      : null,
    status,
    rejectReason: card?.rejectReason ?? null,
    submittedAt: card?.submittedAt?.toISOString() ?? null,
    reviewedAt: card?.reviewedAt?.toISOString() ?? null,
    warnings: card?.warnings ?? [],
    blocked: card?.blocked ?? [],
    coverPending: card?.coverPending ?? false,
    // Listed, but not shown: a build other than the listed one is live, or the platform paused it
    // (taken down, or the workspace holds more projects than its plan allows).
    hidden:
      status === 'listed' && (project.liveBuildId !== card?.listedBuildId || project.takenDownAt !== null || project.overLimitAt !== null),
    appealable: (status === 'blocked' || ((status === 'pulled' || status === 'pending') && takenOff)) && appeal?.status !== 'open',
    appeal: appeal
      ? {
          id: appeal.id,
          status: appeal.status,
          message: appeal.message,
          createdAt: appeal.createdAt.toISOString(),
          decidedAt: appeal.decidedAt?.toISOString() ?? null,
          note: appeal.decisionNote,
        }
      : null,
    publicUrl: publicUrlOf(config, project.slug),
    suggest: Boolean(config.AI_BASE_URL && config.AI_API_KEY),
    updatedAt: card?.updatedAt?.toISOString() ?? null,
  };
}

export async function readCard(sql: Sql, config: Config, workspaceId: string, projectId: string) {
  const project = await projectIn(sql, workspaceId, projectId);
  const view = cardView(config, project, await cardOf(sql, project.id), await latestAppeal(sql, project.id));
  // A card the workspace has no appeal left for is not shown as appealable (appealListing answers 429 with when).
  if (!view.appealable) return view;
  const used = await countActions(sql, 'workspace', { kind: 'appeal', workspaceId }, 24 * 30);
  return { ...view, appealable: used.n < limits.appealsIn30Days };
}

/** The words and the slug, checked as the community would show them. */
export const checkCardWords = (c: { title: string; line: string; slug: string }): Checked =>
  merge(checkWords('title', c.title), checkWords('line', c.line), checkSlugWords(c.slug));

/** 429 (with when to come back) when `n` reached `max` within the window. */
export function overLimit(n: { n: number; retryAfter: number }, max: number, what: string) {
  if (n.n >= max) throw new Refusal(429, what, 'rate', { retryAfter: Math.max(1, n.retryAfter) });
}

/**
 * saveCard: the words are kept whatever the status; a listed card's new words are checked, and
 * one that fails leaves the community (blocked). At most 10 edits of a listed card a day.
 */
export async function saveCard(
  sql: Sql,
  config: Config,
  auth: SessionAuth,
  projectId: string,
  input: { title: string; line: string; credit?: boolean },
) {
  const project = await projectIn(sql, auth.workspaceId, projectId);
  const { credit, ...words } = input;
  if (credit) {
    if (!(await profileOf(sql, auth.personId)).handle)
      throw refused(422, 'unfinished', 'choose a community handle first (setProfile) to be credited');
  }
  const checked = checkCardWords({ ...words, slug: project.slug });
  await sql.begin(async (tx) => {
    await lockFor(tx, `card:${project.id}`);
    const card = await cardOf(tx, project.id, true);
    if (card?.status === 'listed') {
      overLimit(
        await countActions(tx, 'project', { kind: 'edit', projectId: project.id }, 24),
        limits.editsADay,
        `at most ${limits.editsADay} edits of a listed card a day`,
      );
      await recordAction(tx, { kind: 'edit', workspaceId: auth.workspaceId, projectId: project.id, personId: auth.personId });
    }
    await saveCardWords(tx, {
      projectId: project.id,
      workspaceId: auth.workspaceId,
      ...words,
      creditPersonId: credit === undefined ? undefined : credit ? auth.personId : null,
    });
    if (card?.status !== 'listed') return;
    const blocked = checked.blocked.length > 0;
    await setCardOutcome(tx, project.id, { status: blocked ? 'blocked' : 'listed', blocked: checked.blocked, warnings: checked.warnings });
    if (blocked) await blockedNotice(tx, config, project, checked);
  });
  return readCard(sql, config, auth.workspaceId, project.id);
}

async function blockedNotice(tx: Db, config: Config, project: ProjectRow, checked: Checked) {
  const first = checked.blocked[0];
  await noticeWorkspace(tx, {
    workspaceId: project.workspaceId,
    projectId: project.id,
    kind: 'listing.blocked',
    title: `${project.name} is not listed`,
    body: `The community check stopped it: the ${first.part} (${first.reason}: ${first.detail}). Change it and list again, or appeal.`,
    href: publicUrlOf(config, project.slug),
  });
}

const nothing: Checked = { blocked: [], warnings: [] };

/**
 * What the project shows besides its card and build (issue 28, M5): its name, its workspace's brand
 * name, the credited person's bio, and its room pages (parsed in the page checks' worker thread,
 * within the same caps as a build's pages).
 */
async function shownChecks(sql: Sql, project: ProjectRow): Promise<Checked> {
  const { brandName, bio } = await shownWordsOf(sql, project.id);
  const rooms = await roomPagesToCheck(sql, project.id, { maxPages: pageCaps.pages, maxChars: pageCaps.bytesPerPage });
  let budget = pageCaps.bytesPerBuild;
  const roomPages = rooms.map((p) => {
    const content = p.content.slice(0, Math.max(0, budget));
    budget -= content.length;
    return { ...p, content };
  });
  return merge(
    checkWords('name', project.name),
    brandName ? checkWords('brand', brandName) : nothing,
    bio ? checkWords('bio', bio) : nothing,
    roomPages.length ? await checkPagesOffLoop({ pages: [], roomPages }, project.workspaceId) : nothing,
  );
}

/** Every check a listing runs: the words, the slug, what else the room shows and the pages of a static live build (`liveKind`). */
export async function listingChecks(
  sql: Sql,
  storage: Storage,
  project: ProjectRow,
  liveKind: 'static' | 'container' | null,
  card: { title: string; line: string },
): Promise<Checked> {
  const words = merge(checkCardWords({ ...card, slug: project.slug }), await shownChecks(sql, project));
  if (!project.liveBuildId || !liveKind) return words;
  if (liveKind === 'container') {
    return merge(words, {
      blocked: [],
      warnings: [
        {
          part: 'pages',
          reason: 'credentials',
          detail: "a container demo's pages are not read (its bundle is never unpacked): what it shows is the builder's to answer for",
        },
      ],
    });
  }
  return merge(words, await buildPageFindings(sql, storage, project.liveBuildId, project.workspaceId));
}

/**
 * listProject: needs a card and a live build (422 unfinished); a container build needs a paid
 * plan (402); at most 3 a day per workspace (429), counted before any check runs, so a request
 * costs its place whatever the checks find. A card taken off before waits for review (pending);
 * otherwise the checks decide: listed, or blocked with each failed part.
 */
export async function listProject(sql: Sql, storage: Storage, config: Config, auth: SessionAuth, projectId: string) {
  const project = await projectIn(sql, auth.workspaceId, projectId);
  const card0 = await cardOf(sql, project.id);
  if (!card0) throw refused(422, 'unfinished', 'save a card (title and line) first');
  if (!project.liveBuildId) throw refused(422, 'unfinished', 'make a build live first');
  const plan = await planNameOf(sql, auth.workspaceId);
  const liveKind = await liveBuildKind(sql, project);
  if (liveKind === 'container' && planOf(plan).staticOnly) throw planLimit('containers', plan);
  if (card0.status === 'listed' && card0.listedBuildId === project.liveBuildId) return readCard(sql, config, auth.workspaceId, project.id);
  await sql.begin(async (tx) => {
    await lockFor(tx, `workspace:${auth.workspaceId}`);
    overLimit(
      await countActions(tx, 'workspace', { kind: 'list', workspaceId: auth.workspaceId }, 24),
      limits.listingsADay,
      `at most ${limits.listingsADay} listing requests a day`,
    );
    await recordAction(tx, { kind: 'list', workspaceId: auth.workspaceId, projectId: project.id, personId: auth.personId });
  });
  const checked = card0.takenOffAt ? null : await listingChecks(sql, storage, project, liveKind, card0);
  await sql.begin(async (tx) => {
    const card = (await cardOf(tx, project.id, true))!;
    if (!checked) {
      await setCardOutcome(tx, project.id, { status: 'pending', blocked: [], warnings: card.warnings, submitted: true });
      return;
    }
    const blocked = checked.blocked.length > 0;
    await setCardOutcome(tx, project.id, {
      status: blocked ? 'blocked' : 'listed',
      blocked: checked.blocked,
      warnings: checked.warnings,
      listedBuildId: project.liveBuildId,
      submitted: true,
    });
    if (blocked) await blockedNotice(tx, config, project, checked);
  });
  return readCard(sql, config, auth.workspaceId, project.id);
}

/**
 * rehearseListing: what listProject would decide now; writes and counts nothing. The build's page
 * findings are read as stored (computed once per build, off the event loop), so repeating it costs
 * little; the room pages' check waits its turn in the same bounded pool (503 when it is full).
 */
export async function rehearseListing(sql: Sql, storage: Storage, workspaceId: string, projectId: string) {
  const project = await projectIn(sql, workspaceId, projectId);
  const card = await cardOf(sql, project.id);
  const said: string[] = [];
  if (!card) said.push('Save a card (title and line) first.');
  if (!project.liveBuildId) said.push('Make a build live first.');
  if (!card || !project.liveBuildId) return { outcome: 'refused' as const, findings: [], warnings: [], said };
  if (card.status === 'listed' && card.listedBuildId === project.liveBuildId)
    return { outcome: 'already' as const, findings: [], warnings: card.warnings, said: ['Listed already.'] };
  const checked = await listingChecks(sql, storage, project, await liveBuildKind(sql, project), card);
  if (card.takenOffAt) said.push('This card was taken off by the platform before: a new listing waits for a review.');
  const outcome = card.takenOffAt ? ('pending' as const) : checked.blocked.length ? ('blocked' as const) : ('listed' as const);
  for (const f of checked.blocked) said.push(`The ${f.part} would block the listing: ${f.detail}.`);
  return { outcome, findings: checked.blocked, warnings: checked.warnings, said };
}

/**
 * After a change to what listed projects show (their name, a room page, the brand name, the
 * credited bio: issue 28, M5), checked before it was saved: a failure takes each of those still
 * listed off the community (blocked, with a notice), as a failing saveCard does; a pass changes
 * nothing.
 */
export async function blockListedIfFailed(sql: Sql, config: Config, projectIds: string[], checked: Checked) {
  if (!checked.blocked.length) return;
  for (const id of projectIds) {
    await sql.begin(async (tx) => {
      const card = await cardOf(tx, id, true);
      if (card?.status !== 'listed') return;
      const project = (await projectById(tx, id))!;
      await setCardOutcome(tx, id, { status: 'blocked', blocked: checked.blocked, warnings: card.warnings });
      await blockedNotice(tx, config, project, checked);
    });
  }
}

/** Whether the project's card is listed: only then is a change to what it shows checked at once. */
export const isListed = async (sql: Sql, projectId: string) => (await cardOf(sql, projectId))?.status === 'listed';

/** A room page about to be saved on a listed project, checked in the page checks' worker thread in its workspace's turn. */
export const checkRoomPageOffLoop = (page: { title: string; kind: 'markdown' | 'html'; content: string }, workspaceId: string) =>
  checkPagesOffLoop({ pages: [], roomPages: [{ ...page, content: page.content.slice(0, pageCaps.bytesPerPage) }] }, workspaceId);

/** unlistProject: the public address stops answering; the card stays as a draft. */
export async function unlistProject(sql: Sql, config: Config, workspaceId: string, projectId: string) {
  const project = await projectIn(sql, workspaceId, projectId);
  await unlistCard(sql, project.id);
  return readCard(sql, config, workspaceId, project.id);
}

/**
 * appealListing: a blocked or taken-off card, with a message of 10 to 1000 characters; 409 while
 * one is open; at most 3 per workspace in 30 days. The appeal keeps exactly the words and build.
 */
export async function appealListing(sql: Sql, config: Config, auth: SessionAuth, projectId: string, message: string) {
  const project = await projectIn(sql, auth.workspaceId, projectId);
  await sql.begin(async (tx) => {
    await lockFor(tx, `workspace:${auth.workspaceId}`);
    const card = await cardOf(tx, project.id, true);
    const view = card ? cardView(config, project, card, await latestAppeal(tx, project.id)) : null;
    if (view?.appeal?.status === 'open') throw refused(409, 'taken', 'an appeal of this card is open already');
    if (!card || !view?.appealable) throw refused(422, 'unfinished', 'only a blocked card, or one the platform took off, can be appealed');
    overLimit(
      await countActions(tx, 'workspace', { kind: 'appeal', workspaceId: auth.workspaceId }, 24 * 30),
      limits.appealsIn30Days,
      `at most ${limits.appealsIn30Days} appeals in 30 days`,
    );
    await recordAction(tx, { kind: 'appeal', workspaceId: auth.workspaceId, projectId: project.id, personId: auth.personId });
    await insertAppeal(tx, {
      projectId: project.id,
      workspaceId: auth.workspaceId,
      title: card.title,
      line: card.line,
      buildId: project.liveBuildId,
      message,
      createdBy: auth.personId,
    });
  });
  return readCard(sql, config, auth.workspaceId, project.id);
}
