import type { Sql } from '../core/db.js';

/** What a workspace uses of its plan now. Each area adds its own count here as it lands. */
export async function usageOf(sql: Sql, workspaceId: string) {
  const [row] = await sql<{ seats: number }[]>`
    select (select count(*)::int from memberships where workspace_id = ${workspaceId}) as seats`;
  return { seats: row.seats };
}
