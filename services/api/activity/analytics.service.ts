import type { AnalyticsDay, Figures, ProjectAnalytics, WorkspaceAnalytics } from '@demo-rooms/contract';
import type { Sql } from '../../core/infra/db.js';
import { refused } from '../../core/rules/errors.js';
import { liveStories } from '../../data/builds.sql.js';
import { dayOf, nextDay, rawRows, rolledDays, rolledRows, type DayRow } from '../../data/event-days.sql.js';
import { projectsIn, type ProjectRow } from '../../data/projects.sql.js';
import { noNames, subjectNames, type SubjectNames } from '../../data/subject-names.sql.js';
import { planFor } from '../../data/workspaces.sql.js';

// projectAnalytics and workspaceAnalytics (spec 4.2; issue 15, item 7). Past days answer from the
// day roll-ups, today (and any past day the job has not rolled yet) from the raw events, so the
// figures are current and a long range costs one row a project a day. Shapes: resources/analytics.ts.

/** The spec's limit on a range (section 9), both ends included. */
export const maxRangeDays = 366;

/** A UTC day from 0001-01-01 on: there is no year 0 (Postgres refuses it). */
const dayPattern = /^(?!0000)\d{4}-\d{2}-\d{2}$/;

/** Checks a range of UTC days; 422 `range` when a side is not a day (or is in year 0), the range is reversed, or longer than 366 days. */
export function checkRange(from: string, to: string): { from: string; to: string; days: string[] } {
  for (const d of [from, to]) {
    if (!dayPattern.test(d) || Number.isNaN(Date.parse(`${d}T00:00:00Z`)) || dayOf(new Date(`${d}T00:00:00Z`)) !== d) {
      throw refused(422, 'range', `${d.slice(0, 40)} is not a UTC day (YYYY-MM-DD)`);
    }
  }
  if (to < from) throw refused(422, 'range', `the range ends (${to}) before it starts (${from})`);
  const count = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000 + 1;
  if (count > maxRangeDays) throw refused(422, 'range', `${count} days; at most ${maxRangeDays}`);
  const days: string[] = [];
  // Counted, not compared: the day after 9999-12-31 has five digits and sorts before it.
  for (let i = 0, d = from; i < count; i++, d = nextDay(d)) days.push(d);
  return { from, to, days };
}

const zero = (): Figures => ({
  views: 0,
  viewers: 0,
  activeSeconds: 0,
  time: {},
  storyCompletions: 0,
  steps: {},
  scenarios: {},
  answers: {},
  comments: 0,
  bounces: 0,
});

function addTally(into: Record<string, number>, from: Record<string, number>) {
  for (const [k, n] of Object.entries(from)) into[k] = (into[k] ?? 0) + Number(n);
}

/** Adds one project-day row (or another sum) into `f`; `lastStep` is the project's story end, for completions. */
function add(f: Figures, r: DayRow | Figures, lastStep?: string) {
  f.views += r.views;
  f.viewers += r.viewers;
  f.activeSeconds += Number(r.activeSeconds);
  f.comments += r.comments;
  f.bounces += r.bounces;
  addTally(f.time, r.time);
  addTally(f.steps, r.steps);
  addTally(f.scenarios, r.scenarios);
  addTally(f.answers, r.answers);
  f.storyCompletions += 'storyCompletions' in r ? r.storyCompletions : lastStep ? Number(r.steps[lastStep] ?? 0) : 0;
}

/** The scope's project-day rows over the range: roll-ups for rolled past days, raw events for the rest. */
async function rowsOf(sql: Sql, scope: { workspaceId: string; projectId?: string }, range: { from: string; to: string; days: string[] }) {
  const today = dayOf(new Date());
  const pastEnd = range.to < today ? range.to : [...range.days].reverse().find((d) => d < today);
  const rolled = pastEnd ? await rolledDays(sql, range.from, pastEnd) : new Set<string>();
  const raw = range.days.filter((d) => !rolled.has(d));
  const [stored, fresh] = await Promise.all([
    rolled.size ? rolledRows(sql, scope, range.from, range.to) : [],
    raw.length ? rawRows(sql, scope, raw[0], raw[raw.length - 1]) : [],
  ]);
  return [...stored.filter((r) => rolled.has(r.day)), ...fresh.filter((r) => !rolled.has(r.day))];
}

function byDay(range: { days: string[] }, rows: DayRow[], stories: Map<string, string[]>) {
  const days = new Map<string, AnalyticsDay>(range.days.map((day) => [day, { day, ...zero() }]));
  const totals = zero();
  for (const r of rows) {
    const last = stories.get(r.projectId)?.at(-1);
    const day = days.get(r.day);
    if (day) add(day, r, last);
    add(totals, r, last);
  }
  return { days: [...days.values()], totals };
}

export async function projectAnalytics(
  sql: Sql,
  workspaceId: string,
  project: ProjectRow,
  from: string,
  to: string,
): Promise<ProjectAnalytics> {
  const range = checkRange(from, to);
  const full = (await planFor(sql, workspaceId)).fullAnalytics;
  const rows = await rowsOf(sql, { workspaceId, projectId: project.id }, range);
  if (!full) return { from, to, full: false, totals: { views: rows.reduce((n, r) => n + r.views, 0) } };
  const [stories, names] = await Promise.all([liveStories(sql, workspaceId, project.id), subjectNames(sql, [project.id])]);
  return { from, to, full: true, ...byDay(range, rows, stories), names: names.get(project.id)! };
}

export async function workspaceAnalytics(sql: Sql, workspaceId: string, from: string, to: string): Promise<WorkspaceAnalytics> {
  const range = checkRange(from, to);
  const full = (await planFor(sql, workspaceId)).fullAnalytics;
  const rows = await rowsOf(sql, { workspaceId }, range);
  if (!full) return { from, to, full: false, totals: { views: rows.reduce((n, r) => n + r.views, 0) } };
  const [stories, projects] = await Promise.all([liveStories(sql, workspaceId), projectsIn(sql, workspaceId)]);
  const split = new Map<string, Figures>();
  for (const r of rows) {
    let f = split.get(r.projectId);
    if (!f) split.set(r.projectId, (f = zero()));
    add(f, r, stories.get(r.projectId)?.at(-1));
  }
  const named = new Map(projects.map((p) => [p.id, p]));
  const perProject = [...split.entries()]
    .filter(([id]) => named.has(id))
    .map(([projectId, totals]) => ({ projectId, slug: named.get(projectId)!.slug, name: named.get(projectId)!.name, totals }))
    .sort((a, b) => b.totals.views - a.totals.views || a.slug.localeCompare(b.slug));
  // Across projects an id is only unique with its project (two rooms may each have an app `web`).
  const keyed = rows.map((r) => ({
    ...r,
    time: byProject(r.projectId, r.time),
    steps: byProject(r.projectId, r.steps),
    scenarios: byProject(r.projectId, r.scenarios),
  }));
  const keyedStories = new Map([...stories].map(([projectId, steps]) => [projectId, steps.map((id) => `${projectId}:${id}`)]));
  const names = await subjectNames(
    sql,
    [...split.keys()].filter((id) => named.has(id)),
  );
  const figures = byDay(range, keyed, keyedStories);
  return { from, to, full: true, ...figures, projects: perProject, names: workspaceNames(names, named, figures.totals) };
}

/** A project's tally with its keys as `<projectId>:<id>`. */
function byProject(projectId: string, tally: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(tally).map(([k, n]) => [`${projectId}:${k}`, n]));
}

/**
 * The names of every key the totals use, each labelled with its project ("Shop · Website"); an id
 * without a name of its own still gets its project's ("Shop · web"), never a bare project id.
 */
function workspaceNames(names: Map<string, SubjectNames>, projects: Map<string, ProjectRow>, totals: Figures): SubjectNames {
  const out = noNames();
  for (const tally of ['time', 'steps', 'scenarios'] as const) {
    for (const key of Object.keys(totals[tally])) {
      const cut = key.indexOf(':');
      const projectId = key.slice(0, cut);
      const id = key.slice(cut + 1);
      const project = projects.get(projectId);
      if (project) out[tally][key] = `${project.name} · ${names.get(projectId)?.[tally][id] ?? id}`;
    }
  }
  return out;
}
