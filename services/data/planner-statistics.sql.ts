import type { Sql } from '../core/infra/db.js';

// The planner's picture of the tables a crowd fills in seconds (docs/scale.md, "Eleventh round").
// Postgres plans from statistics that autovacuum refreshes at most once a minute (its naptime)
// and only after a tenth of a table changed. A table that goes from a few rows to ten thousand in
// seconds (runner_copies on a launch's first burst, or on a new database) is planned for the few
// until then: the view by sessions counted each queued viewer's place by walking every live copy
// (p99 3–10 s a statement) and a first burst's answers took 18–69 s instead of 8–11. Analyzing a
// table of this size takes tens of milliseconds, so the runner does it when the table has changed
// by more than it holds: at most one host at a time, off every viewer's path.

/** The tables whose size a crowd changes many times over within a minute. */
export const CROWD_TABLES = ['runner_copies', 'copy_events'] as const;
export type CrowdTable = (typeof CROWD_TABLES)[number];

export interface StaleRule {
  /** Rows changed since the last analyze below which a table is never stale. */
  minChanges: number;
  /** Rows changed, as a share of the rows the statistics count, above which it is. */
  share: number;
}

/** A table of 5,000 rows is analyzed again after 1,000 changes; autovacuum's own rule is 50 + 10 %, a minute late. */
export const CROWD_RULE: StaleRule = { minChanges: 1_000, share: 0.2 };

/**
 * Analyzes each of `tables` whose changes since its last analyze pass the rule; the tables
 * analyzed. Skipped at once (nothing analyzed) while another host is doing it.
 */
export function analyzeStale(sql: Sql, tables: readonly CrowdTable[], rule: StaleRule = CROWD_RULE): Promise<CrowdTable[]> {
  return sql.begin(async (tx) => {
    const [turn] = await tx<{ mine: boolean }[]>`select pg_try_advisory_xact_lock(hashtext('runner.planner-statistics')) as mine`;
    if (!turn.mine) return [];
    const stale = await tx<{ name: CrowdTable }[]>`
      select s.relname as name from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.schemaname = current_schema() and s.relname = any(${tables as string[]})
        and s.n_mod_since_analyze > greatest(${rule.minChanges}, ${rule.share} * greatest(c.reltuples, 0))
      order by s.relname`;
    // Names from CROWD_TABLES only (the type), quoted as identifiers all the same.
    for (const { name } of stale) await tx`analyze ${tx(name)}`;
    return stale.map((s) => s.name);
  });
}
