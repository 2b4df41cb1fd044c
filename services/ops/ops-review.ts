import type { Db, Sql } from '../core/infra/db.js';
import type { Storage } from '../core/infra/storage.js';
import { decideAppeal, openAppeals, recordDecision } from '../data/appeals.sql.js';
import { cardOf, clearTakenOff, pendingCards, setCardOutcome, takeCardOff } from '../data/cards.sql.js';
import { projectById, projectBySlug } from '../data/projects.sql.js';
import { noticeWorkspace, type NoticeKind } from '../data/notices.sql.js';
import { markReportHandled, openReports } from '../data/reports.sql.js';
import { approveCover, heldCoverLines, rejectCover, saveHeldCover } from './ops-covers.js';

// `npm run ops -- review …`: the operator decides what the checks leave to a person (issue 18):
// cards waiting after a takedown, new covers of listed cards, appeals, reports, and pulling a listing. Every decision is
// recorded (review_decisions) and writes the notice of section 6 to the workspace's people.

async function projectNamed(sql: Sql, slug: string) {
  const p = await projectBySlug(sql, slug);
  if (!p) throw new Error(`no project with slug ${slug}`);
  return p;
}

async function notify(sql: Db, p: { id: string; workspaceId: string; name: string }, kind: NoticeKind, title: string, body: string) {
  await noticeWorkspace(sql, { workspaceId: p.workspaceId, projectId: p.id, kind, title, body, href: null });
}

/** What waits for the operator, as lines to read. */
export async function reviewList(sql: Sql): Promise<string> {
  const pending = await pendingCards(sql);
  const appeals = await openAppeals(sql);
  const reports = await openReports(sql);
  return [
    `pending cards (${pending.length}): approve <slug> | reject <slug> <reason>`,
    ...pending.map((c) => `  ${c.slug}  "${c.title}" — ${c.line}  (since ${c.submittedAt.toISOString()})`),
    ...(await heldCoverLines(sql)),
    `open appeals (${appeals.length}): uphold <appeal id> [note] | deny <appeal id> [note]`,
    ...appeals.map((a) => `  ${a.id}  ${a.slug}  "${a.title}": ${a.message}`),
    `open reports (${reports.length}): pull <slug> <reason> | handled <report id>`,
    ...reports.map((r) => `  ${r.id}  ${r.slug}  ${r.reason}${r.detail ? `: ${r.detail}` : ''}`),
  ].join('\n');
}

export async function approveCard(sql: Sql, slug: string): Promise<string> {
  const p = await projectNamed(sql, slug);
  await sql.begin(async (tx) => {
    const card = await cardOf(tx, p.id, true);
    if (card?.status !== 'pending') throw new Error(`${slug}'s card is not waiting for review`);
    await setCardOutcome(tx, p.id, {
      status: 'listed',
      blocked: [],
      warnings: card.warnings,
      listedBuildId: card.liveBuildId,
      reviewed: true,
    });
    await clearTakenOff(tx, p.id);
    await recordDecision(tx, { projectId: p.id, decision: 'approve' });
  });
  return `${slug}: listed`;
}

/** Pulls a card (a pending one refused, or a listed one taken off): status pulled, with a notice. */
export async function pullCard(sql: Sql, slug: string, reason: string, decision: 'reject' | 'takedown' = 'reject'): Promise<string> {
  const p = await projectNamed(sql, slug);
  await sql.begin(async (tx) => {
    if (!(await cardOf(tx, p.id, true))) throw new Error(`${slug} has no card`);
    await takeCardOff(tx, p.id, reason);
    await recordDecision(tx, { projectId: p.id, decision, note: reason });
    const kind = decision === 'takedown' ? 'listing.takedown' : 'listing.pulled';
    await notify(tx, p, kind, `${p.name} was taken off the community`, `Reason: ${reason}. You can appeal from the project's card.`);
  });
  return `${slug}: pulled`;
}

/** Decides an appeal: upheld lists exactly the words and build appealed; denied stays as it is. */
export async function decide(sql: Sql, appealId: string, upheld: boolean, note: string | null): Promise<string> {
  return sql.begin(async (tx) => {
    const appeal = await decideAppeal(tx, appealId, upheld ? 'upheld' : 'denied', note);
    if (!appeal) throw new Error(`no open appeal ${appealId}`);
    const p = (await projectById(tx, appeal.projectId))!;
    await recordDecision(tx, { projectId: p.id, appealId, decision: upheld ? 'uphold' : 'deny', note });
    if (upheld) {
      await clearTakenOff(tx, p.id, { title: appeal.title, line: appeal.line });
      await setCardOutcome(tx, p.id, { status: 'listed', blocked: [], warnings: [], listedBuildId: appeal.buildId, reviewed: true });
      await notify(tx, p, 'appeal.upheld', `${p.name}: appeal upheld`, `Your card is listed again, as appealed${note ? `: ${note}` : '.'}`);
    } else {
      await notify(tx, p, 'appeal.denied', `${p.name}: appeal denied`, note ?? 'The card stays off the community.');
    }
    return `${appealId}: ${upheld ? 'upheld' : 'denied'}`;
  });
}

export async function reportHandled(sql: Sql, reportId: string): Promise<string> {
  if (!(await markReportHandled(sql, reportId))) throw new Error(`no open report ${reportId}`);
  return `${reportId}: handled`;
}

export async function review(sql: Sql, storage: Storage, args: string[]): Promise<string> {
  const [what, subject, ...rest] = args;
  const note = rest.join(' ') || null;
  switch (what ?? 'list') {
    case 'list':
      return reviewList(sql);
    case 'approve':
      return approveCard(sql, need(subject, 'slug'));
    case 'reject':
      return pullCard(sql, need(subject, 'slug'), need(note, 'reason'));
    case 'pull':
      return pullCard(sql, need(subject, 'slug'), need(note, 'reason'));
    case 'uphold':
      return decide(sql, need(subject, 'appeal id'), true, note);
    case 'deny':
      return decide(sql, need(subject, 'appeal id'), false, note);
    case 'handled':
      return reportHandled(sql, need(subject, 'report id'));
    case 'cover':
      return saveHeldCover(sql, storage, need(subject, 'slug'), need(note, 'file'));
    case 'approve-cover':
      return approveCover(sql, storage, need(subject, 'slug'));
    case 'reject-cover':
      return rejectCover(sql, storage, need(subject, 'slug'), need(note, 'reason'));
    default:
      throw new Error(`review takes list, approve, reject, pull, uphold, deny, handled, cover, approve-cover or reject-cover, not ${what}`);
  }
}

function need(value: string | null | undefined, what: string): string {
  if (!value) throw new Error(`review needs a ${what}`);
  return value;
}
