import { type StatementLine, type UsageStatement, STATEMENT_LINE_CAP } from '@demo-rooms/contract';
import type { Db } from '../core/infra/db.js';
import { roundHours } from './container-usage.sql.js';
import {
  monthClosedAt,
  firstLines,
  projectTotals,
  statementLines,
  type MonthBounds,
  type StatementLineRow,
} from './usage-statements.sql.js';

// A statement's figures (issue 46) from its lines: the api's reply, the CSV export's lines and the
// month_closed webhook's numbers all come from here. Sums are taken of the unrounded seconds and
// rounded once, as containerUsage rounds its own, so the two agree to the last digit shown.

/** Seconds to the millisecond, as every line and total shows them. */
export const toMillis = (seconds: number) => Math.round(seconds * 1000) / 1000;
/** Dollars to a hundredth of a cent. */
const toUsd = (usd: number) => Math.round(usd * 10_000) / 10_000;
const monthName = (d: Date) => d.toISOString().slice(0, 7);

/** A line as the contract shows it. */
export function lineOf(r: StatementLineRow): StatementLine {
  return {
    kind: r.correctsMonth ? 'correction' : 'use',
    projectId: r.projectId,
    copyId: r.copyId,
    startedAt: r.startedAt.toISOString(),
    endedAt: r.endedAt ? r.endedAt.toISOString() : null,
    seconds: toMillis(r.seconds),
    correctsMonth: r.correctsMonth ? monthName(r.correctsMonth) : null,
    eventSeqs: r.eventSeqs,
  };
}

/** What a statement is made of: whether the month is closed, the SQL of its lines, its projects' totals. */
export async function statementSource(db: Db, workspaceId: string, month: MonthBounds) {
  const closedAt = await monthClosedAt(db, workspaceId, month.start);
  const lines = await statementLines(db, workspaceId, month, closedAt !== null);
  const projects = await projectTotals(db, workspaceId, month, lines, closedAt !== null);
  return { closedAt, lines, projects };
}

/** The workspace's statement of `month`, with at most `lineCap` of its lines. */
export async function usageStatement(
  db: Db,
  workspaceId: string,
  month: MonthBounds,
  copyHourUsd: number,
  lineCap = STATEMENT_LINE_CAP,
): Promise<UsageStatement> {
  const { closedAt, lines, projects } = await statementSource(db, workspaceId, month);
  const shown = lineCap > 0 ? await firstLines(db, lines, lineCap) : [];
  const sum = (f: (p: (typeof projects)[number]) => number) => projects.reduce((a, p) => a + f(p), 0);
  const useSeconds = sum((p) => p.useSeconds);
  const correctionSeconds = sum((p) => p.correctionSeconds);
  const containerHours = roundHours(useSeconds / 3600);
  const lineCount = sum((p) => p.copies + p.corrections);
  return {
    month: monthName(month.start),
    closed: closedAt !== null,
    closedAt: closedAt?.toISOString() ?? null,
    copyHourUsd,
    containerSeconds: toMillis(useSeconds),
    containerHours,
    spendUsd: toUsd(containerHours * copyHourUsd),
    correctionSeconds: toMillis(correctionSeconds),
    correctionUsd: toUsd((correctionSeconds / 3600) * copyHourUsd),
    viewerHours: roundHours(sum((p) => p.viewerSeconds) / 3600),
    projects: projects
      .filter((p) => p.copies > 0 || p.useSeconds !== 0 || p.correctionSeconds !== 0 || p.viewerSeconds > 0)
      .map((p) => ({
        projectId: p.projectId,
        name: p.name,
        copies: p.copies,
        containerSeconds: toMillis(p.useSeconds),
        containerHours: roundHours(p.useSeconds / 3600),
        correctionSeconds: toMillis(p.correctionSeconds),
        viewerHours: roundHours(p.viewerSeconds / 3600),
      }))
      .sort((a, b) => b.containerSeconds - a.containerSeconds || a.name.localeCompare(b.name)),
    lines: shown.map(lineOf),
    lineCount,
    linesCut: lineCount > shown.length,
  };
}
