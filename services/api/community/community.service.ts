import type { Config } from '../../core/infra/config.js';
import type { Sql } from '../../core/infra/db.js';
import { notFound, unavailable } from '../../core/rules/errors.js';
import { isUuid } from '../../core/infra/ids.js';
import { publicListings } from '../../data/cards.sql.js';
import { projectBySlug } from '../../data/projects.sql.js';
import { countActions, lockFor, recordAction } from '../../data/community-actions.sql.js';
import { markNoticesRead, noticesOf } from '../../data/notices.sql.js';
import { insertReport, type ReportReason } from '../../data/reports.sql.js';
import type { SessionAuth } from '../../data/sessions.sql.js';
import { checkCardWords, overLimit } from './cards.service.js';

// The community beyond one card (spec 4.5): notices, reports, the open listings, and drafted
// wording.

export const reportsADay = 20;

export async function listNotices(sql: Sql, auth: SessionAuth) {
  return (await noticesOf(sql, auth.personId)).map((n) => ({
    id: n.id,
    kind: n.kind,
    title: n.title,
    body: n.body,
    href: n.href,
    createdAt: n.createdAt.toISOString(),
    readAt: n.readAt?.toISOString() ?? null,
  }));
}

/** Marks the given notices read (ids of no notice of the caller's change nothing), or all. */
export async function readNotices(sql: Sql, auth: SessionAuth, ids: string[] | undefined) {
  return { read: await markNoticesRead(sql, auth.personId, ids === undefined ? null : ids.filter(isUuid)) };
}

/** reportProject: any signed-in person, about any project by its slug; 20 a day each. */
export async function reportProject(sql: Sql, auth: SessionAuth, r: { slug: string; reason: ReportReason; detail?: string | null }) {
  const project = await projectBySlug(sql, r.slug);
  if (!project) throw notFound();
  const id = await sql.begin(async (tx) => {
    await lockFor(tx, `person:${auth.personId}`);
    overLimit(
      await countActions(tx, 'person', { kind: 'report', personId: auth.personId }, 24),
      reportsADay,
      `at most ${reportsADay} reports a day`,
    );
    await recordAction(tx, { kind: 'report', personId: auth.personId, projectId: project.id });
    return insertReport(tx, { projectId: project.id, reporterId: auth.personId, reason: r.reason, detail: r.detail ?? null });
  });
  return { id };
}

/** The open listings, newest first. They name no builder: only the credit the builder chose. */
export async function listings(sql: Sql, config: Config, filter: { creditTo?: string } = {}) {
  return (await publicListings(sql, filter)).map((l) => ({
    slug: l.slug,
    title: l.title,
    line: l.line,
    url: `${config.publicUrl}/p/${l.slug}`,
    cover: l.coverHash !== null,
    listedAt: l.listedAt.toISOString(),
    credit: l.credit,
  }));
}

/**
 * suggestWording: a title and line drafted by the configured model (an OpenAI-compatible chat
 * completions API), checked as a card's words are before they are offered; 503 without a model.
 */
export async function suggestWording(config: Config, words: { title: string; line: string; slug: string }) {
  if (!config.AI_BASE_URL || !config.AI_API_KEY)
    throw unavailable('no model is configured for suggested wording (AI_BASE_URL, AI_API_KEY)');
  const res = await fetch(`${config.AI_BASE_URL.replace(/\/$/, '')}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${config.AI_API_KEY}`, 'content-type': 'application/json' },
    signal: AbortSignal.timeout(20_000),
    body: JSON.stringify({
      model: config.AI_MODEL,
      response_format: { type: 'json_object' },
      messages: [
        {
          role: 'system',
          content:
            'You write listings for a gallery of live product demos. Answer JSON {"title": at most 60 characters, "line": at most 140 characters}: plain, specific, no hype, no brand names that are not the product, never asking for sign-ins or payment.',
        },
        { role: 'user', content: JSON.stringify({ title: words.title, line: words.line }) },
      ],
    }),
  }).catch(() => null);
  const body = res?.ok ? ((await res.json().catch(() => null)) as { choices?: { message?: { content?: string } }[] } | null) : null;
  let draft: { title?: unknown; line?: unknown } = {};
  try {
    draft = JSON.parse(body?.choices?.[0]?.message?.content ?? '');
  } catch {
    /* answered below */
  }
  const title = typeof draft.title === 'string' ? draft.title.trim().slice(0, 60) : '';
  const line = typeof draft.line === 'string' ? draft.line.trim().slice(0, 140) : '';
  if (!title || !line) throw unavailable('the model gave no usable wording; try again');
  if (checkCardWords({ title, line, slug: words.slug }).blocked.length)
    throw unavailable('the drafted wording did not pass the community checks; try again');
  return { title, line };
}
