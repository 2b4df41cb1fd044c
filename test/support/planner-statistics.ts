import type { Sql } from '../../services/core/infra/db.js';
import { seedWorkspace } from './runner/seed.js';
import { seedProject } from './usage-seed.js';

// Changes to runner_copies for the planner-statistics tests, and Postgres's own count of the
// analyzes made by hand (a runner's or a test's; autovacuum counts apart, autoanalyze_count).

/** A workspace and project to write ended copies under. */
export async function statisticsOwner(sql: Sql): Promise<{ workspaceId: string; projectId: string }> {
  const workspaceId = await seedWorkspace(sql);
  return { workspaceId, projectId: await seedProject(sql, workspaceId, 'S') };
}

/** `n` ended copies written, and counted in the table's changes at once (not after a backend's next flush). */
export async function changeCopies(sql: Sql, owner: { workspaceId: string; projectId: string }, n: number): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`
      insert into runner_copies (id, runner_id, workspace_id, project_id, build_id, origin, state, end_reason, ended_at)
      select gen_random_uuid(), 'planner-statistics-test', ${owner.workspaceId}, ${owner.projectId}, gen_random_uuid(),
             'viewer', 'ended', 'test', clock_timestamp()
      from generate_series(1, ${n})`;
    await tx`select pg_stat_force_next_flush()`;
  });
}

/** runner_copies as the statistics see it: analyzes by hand so far, rows changed since the last, rows counted. */
export async function copiesStatistics(sql: Sql): Promise<{ analyzes: number; changes: number; rows: number }> {
  const [s] = await sql<{ analyzes: number; changes: number; rows: number }[]>`
    select s.analyze_count::int as analyzes, s.n_mod_since_analyze::int as changes, greatest(c.reltuples, 0)::int as rows
    from pg_stat_user_tables s join pg_class c on c.oid = s.relid
    where s.relname = 'runner_copies' and s.schemaname = current_schema()`;
  return s;
}
