import type { Sql } from '../../services/core/infra/db.js';
import { copySeconds } from '../../services/data/container-usage.sql.js';

// Billed usage against the engine's own record (issue 46, item 3), one check for the fault tests
// and the metering bench (bench/usage-metering.bench.ts): for every copy of the given workspaces,
// the seconds billing computes (copySeconds, the one computation the statements, the roll-up and
// the spend check read) beside the seconds the engine ran it, and
//   per copy      the difference (billed − engine), over TOLERANCE_S listed in `over`;
//   per workspace the totals and their relative difference;
//   double counts a copy whose billed spans overlap in time (the same second billed twice);
//   unbilled      engine time no billed span covers, per copy, more than TOLERANCE_S of it;
//   unjudged      copies with billed time but no engine record to judge them by.
// The engine's record is either given (a bench's or a test's own: podman inspected or its events,
// the stub engine's clock), or the one the runner kept on the copy's row as it removed the unit
// (engine_started_at/engine_finished_at, migration 00040). Paused time is free and the engine's
// start/finish says nothing of it: unless the given record carries its pauses (podman's events),
// the records' pauses are taken out of the engine's run.

export const TOLERANCE_S = 1;
/** The workspace totals' bound: 0.1 %. */
export const WORKSPACE_TOLERANCE = 0.001;

export interface EngineRecord {
  copyId: string;
  startedAt: Date | null;
  finishedAt: Date | null;
  /** Seconds paused inside the run, from the engine's own events; records' pauses otherwise. */
  pausedSeconds?: number;
}

export interface CopyComparison {
  copyId: string;
  workspaceId: string;
  billedSeconds: number;
  engineSeconds: number;
  /** billed − engine. */
  diffSeconds: number;
  /** Engine seconds no billed span covers. */
  unbilledSeconds: number;
  /** Seconds billed twice (overlapping billed spans). */
  doubleSeconds: number;
  /** Where a difference comes from: the first start dated after the engine's start (s; billed less when > 0). */
  startLateS: number;
  /** The last stop or fail dated before the engine's finish (s; billed less when > 0). */
  stopEarlyS: number;
}

export interface UsageComparison {
  copies: CopyComparison[];
  over: CopyComparison[];
  maxAbsDiffS: number;
  p50AbsDiffS: number;
  p99AbsDiffS: number;
  workspaces: { workspaceId: string; billedSeconds: number; engineSeconds: number; relDiff: number }[];
  worstWorkspaceRel: number;
  doubleCounts: CopyComparison[];
  unbilled: CopyComparison[];
  /** Engine seconds of the copies in `unbilled` that no span covers. */
  unbilledEngineSeconds: number;
  /** Every engine second no span covers, within the tolerance too (the few ms between a record and the engine). */
  uncoveredEngineSeconds: number;
  unjudged: string[];
}

type Span = [number, number];

const union = (spans: Span[]): Span[] => {
  const out: Span[] = [];
  for (const [a, b] of [...spans].sort((x, y) => x[0] - y[0])) {
    const last = out.at(-1);
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
};
const length = (spans: Span[]) => spans.reduce((s, [a, b]) => s + Math.max(0, b - a), 0);
const within = (spans: Span[], [from, to]: Span) =>
  length(spans.map(([a, b]) => [Math.max(a, from), Math.min(b, to)] as Span).filter(([a, b]) => b > a));

const quantile = (xs: number[], q: number) => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};

/** Compares what these workspaces were billed, copy by copy, with the engine's record. */
export async function usageAgainstEngine(
  sql: Sql,
  opts: { workspaceIds: string[]; engine?: EngineRecord[]; now?: Date },
): Promise<UsageComparison> {
  const now = opts.now ?? new Date();
  const window = { start: new Date('2000-01-01T00:00:00Z'), end: new Date(now.getTime() + 86_400_000) };
  const scope = sql`workspace_id = any(${opts.workspaceIds}::uuid[])`;
  const billed = await sql<{ copyId: string; seconds: number }[]>`select copy_id, seconds from (${copySeconds(sql, scope, window)}) c`;
  const rows = await sql<
    {
      id: string;
      workspaceId: string;
      engineStartedAt: Date | null;
      engineFinishedAt: Date | null;
      engineCheckedAt: Date | null;
      voided: boolean;
    }[]
  >`select id, workspace_id, engine_started_at, engine_finished_at, engine_checked_at,
           exists (select 1 from copy_events v where v.copy_id = c.id and v.kind = 'void') as voided
    from runner_copies c where ${scope}`;
  const events = await sql<{ copyId: string; kind: string; at: Date }[]>`
    select copy_id, kind, at from copy_events
    where ${scope} and kind in ('start', 'resume', 'pause', 'stop', 'fail') order by copy_id, seq`;
  const billedOf = new Map(billed.map((b) => [b.copyId, b.seconds]));
  const spansOf = new Map<string, { open: Span[]; paused: Span[]; firstStart?: number; lastEnd?: number }>();
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    const next = events[i + 1]?.copyId === e.copyId ? events[i + 1].at.getTime() : now.getTime();
    const s = spansOf.get(e.copyId) ?? { open: [], paused: [] };
    spansOf.set(e.copyId, s);
    if (e.kind === 'start' || e.kind === 'resume') s.open.push([e.at.getTime(), next]);
    else if (e.kind === 'pause') s.paused.push([e.at.getTime(), next]);
    if (e.kind === 'start') s.firstStart ??= e.at.getTime();
    if (e.kind === 'stop' || e.kind === 'fail') s.lastEnd = e.at.getTime();
  }
  const given = new Map((opts.engine ?? []).map((r) => [r.copyId, r]));
  const workspaceOf = new Map(rows.map((r) => [r.id, r.workspaceId]));
  const ids = new Set([...rows.map((r) => r.id), ...given.keys()]);
  const copies: CopyComparison[] = [];
  const unjudged: string[] = [];
  for (const copyId of ids) {
    const row = rows.find((r) => r.id === copyId);
    const voided = row?.voided ?? false;
    const spans = spansOf.get(copyId) ?? { open: [], paused: [] };
    const open = voided ? [] : spans.open;
    const billedSeconds = billedOf.get(copyId) ?? 0;
    const kept: EngineRecord | undefined = row?.engineCheckedAt
      ? { copyId, startedAt: row.engineStartedAt, finishedAt: row.engineFinishedAt ?? row.engineCheckedAt }
      : undefined;
    const record = given.get(copyId) ?? kept;
    if (!record) {
      if (billedSeconds > 0) unjudged.push(copyId);
      continue;
    }
    const run: Span | null = record.startedAt ? [record.startedAt.getTime(), (record.finishedAt ?? now).getTime()] : null;
    const pausedMs = record.pausedSeconds !== undefined ? record.pausedSeconds * 1000 : run ? within(union(spans.paused), run) : 0;
    const engineSeconds = run ? Math.max(0, run[1] - run[0] - pausedMs) / 1000 : 0;
    const merged = union(open);
    const covered = run ? within(merged, run) / 1000 : 0;
    copies.push({
      copyId,
      workspaceId: row?.workspaceId ?? workspaceOf.get(copyId) ?? 'none',
      billedSeconds,
      engineSeconds,
      diffSeconds: billedSeconds - engineSeconds,
      unbilledSeconds: Math.max(0, engineSeconds - covered),
      doubleSeconds: Math.max(0, length(open) - length(merged)) / 1000,
      startLateS: run && spans.firstStart !== undefined ? (spans.firstStart - run[0]) / 1000 : 0,
      stopEarlyS: run && record.finishedAt && spans.lastEnd !== undefined ? (run[1] - spans.lastEnd) / 1000 : 0,
    });
  }
  const byWorkspace = new Map<string, { billedSeconds: number; engineSeconds: number }>();
  for (const c of copies) {
    const w = byWorkspace.get(c.workspaceId) ?? { billedSeconds: 0, engineSeconds: 0 };
    w.billedSeconds += c.billedSeconds;
    w.engineSeconds += c.engineSeconds;
    byWorkspace.set(c.workspaceId, w);
  }
  const workspaces = [...byWorkspace].map(([workspaceId, w]) => ({
    workspaceId,
    ...w,
    relDiff: w.engineSeconds > 0 ? (w.billedSeconds - w.engineSeconds) / w.engineSeconds : w.billedSeconds > 0 ? 1 : 0,
  }));
  const abs = copies.map((c) => Math.abs(c.diffSeconds));
  const unbilled = copies.filter((c) => c.unbilledSeconds > TOLERANCE_S);
  return {
    copies,
    over: copies.filter((c) => Math.abs(c.diffSeconds) > TOLERANCE_S),
    maxAbsDiffS: abs.length ? Math.max(...abs) : 0,
    p50AbsDiffS: quantile(abs, 0.5),
    p99AbsDiffS: quantile(abs, 0.99),
    workspaces,
    worstWorkspaceRel: workspaces.reduce((m, w) => Math.max(m, Math.abs(w.relDiff)), 0),
    doubleCounts: copies.filter((c) => c.doubleSeconds > 0.001),
    unbilled,
    unbilledEngineSeconds: unbilled.reduce((s, c) => s + c.unbilledSeconds, 0),
    uncoveredEngineSeconds: copies.reduce((s, c) => s + c.unbilledSeconds, 0),
    unjudged,
  };
}

/** The comparison as lines to print: the summary, then each copy out of bounds. */
export function describeUsage(u: UsageComparison, limit = 20): string[] {
  const f = (n: number) => n.toFixed(3);
  const lines = [
    `${u.copies.length} copies against the engine: |billed − engine| p50 ${f(u.p50AbsDiffS)} s, p99 ${f(u.p99AbsDiffS)} s, max ${f(u.maxAbsDiffS)} s; ${u.over.length} over ${TOLERANCE_S} s`,
    `workspaces: ${u.workspaces.length}, worst total ${(u.worstWorkspaceRel * 100).toFixed(4)} % (bound ${WORKSPACE_TOLERANCE * 100} %)`,
    `double counts: ${u.doubleCounts.length}; unbilled engine-seconds: ${f(u.unbilledEngineSeconds)} in ${u.unbilled.length} copies (all uncovered, within tolerance too: ${f(u.uncoveredEngineSeconds)} s); unjudged: ${u.unjudged.length}`,
  ];
  // Where the totals' differences come from: starts dated late and stops dated early bill less.
  for (const w of [...u.workspaces].sort((a, b) => Math.abs(b.relDiff) - Math.abs(a.relDiff)).slice(0, 10)) {
    const mine = u.copies.filter((c) => c.workspaceId === w.workspaceId);
    const sum = (k: 'startLateS' | 'stopEarlyS') => mine.reduce((t, c) => t + c[k], 0);
    lines.push(
      `  workspace ${w.workspaceId.slice(0, 8)}: billed ${f(w.billedSeconds)} s, engine ${f(w.engineSeconds)} s (${(w.relDiff * 100).toFixed(4)} %); starts late ${f(sum('startLateS'))} s, stops early ${f(sum('stopEarlyS'))} s`,
    );
  }
  const worst = [...new Set([...u.over, ...u.doubleCounts, ...u.unbilled])].slice(0, limit);
  for (const c of worst)
    lines.push(
      `  copy ${c.copyId}: billed ${f(c.billedSeconds)} s, engine ${f(c.engineSeconds)} s, diff ${f(c.diffSeconds)} s, unbilled ${f(c.unbilledSeconds)} s, double ${f(c.doubleSeconds)} s`,
    );
  return lines;
}

/** The test's expectation in one place: every copy within 1 s, every workspace within 0.1 %, nothing billed twice, nothing unbilled. */
export function usageProblems(u: UsageComparison, opts: { workspaceBound?: boolean } = {}): string[] {
  const problems: string[] = [];
  if (u.over.length) problems.push(`${u.over.length} copies differ by more than ${TOLERANCE_S} s`);
  if (u.doubleCounts.length) problems.push(`${u.doubleCounts.length} copies billed twice`);
  if (u.unbilled.length) problems.push(`${u.unbilled.length} copies with engine time unbilled (${u.unbilledEngineSeconds.toFixed(3)} s)`);
  if (u.unjudged.length) problems.push(`${u.unjudged.length} billed copies with no engine record`);
  if (opts.workspaceBound && u.worstWorkspaceRel > WORKSPACE_TOLERANCE)
    problems.push(`a workspace's total is ${(u.worstWorkspaceRel * 100).toFixed(3)} % off`);
  return problems.length ? [...problems, ...describeUsage(u)] : [];
}
