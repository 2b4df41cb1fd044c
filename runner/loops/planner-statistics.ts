import { analyzeStale, CROWD_TABLES } from '../../services/data/planner-statistics.sql.js';
import type { RunnerContext } from '../service/runner-context.js';

/**
 * How often the runner looks at the crowd tables' changes: a burst fills runner_copies with
 * thousands of rows a second, and each second planned from a picture of the empty table cost its
 * viewers seconds (services/data/planner-statistics.sql.ts).
 */
export const STATISTICS_MS = 2_000;

/** Analyzes the crowd tables that changed by more than their statistics know, when no other host is. */
export async function freshenStatistics(ctx: RunnerContext): Promise<void> {
  const analyzed = await analyzeStale(ctx.sql, CROWD_TABLES);
  if (analyzed.length) ctx.log.debug({ analyzed }, 'planner statistics refreshed');
}
