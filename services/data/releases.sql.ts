import type { Db, Sql } from '../core/infra/db.js';

// A project's releases: each time a build was made live (makeLive), by whom, and whether it was a
// rollback. The project's live build moves in the same transaction as its release is written.

export async function releaseBuild(
  sql: Sql,
  r: { workspaceId: string; projectId: string; buildId: string; releasedBy: string; rollback: boolean },
): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`update projects set live_build_id = ${r.buildId} where id = ${r.projectId}`;
    await tx`
      insert into releases (workspace_id, project_id, build_id, released_by, rollback)
      values (${r.workspaceId}, ${r.projectId}, ${r.buildId}, ${r.releasedBy}, ${r.rollback})`;
  });
}

/** The project's releases, latest first. */
export function releasesOf(db: Db, projectId: string) {
  return db<{ buildId: string; releasedBy: string | null; releasedAt: Date; rollback: boolean }[]>`
    select build_id, released_by, released_at, rollback from releases where project_id = ${projectId} order by released_at desc`;
}

/** Everyone who deployed or released in the project. */
export function deployersOf(db: Db, projectId: string) {
  return db<{ id: string; name: string; email: string }[]>`
    select distinct p.id, p.name, p.email from people p
    where p.id in (select created_by from builds where project_id = ${projectId}
                   union select released_by from releases where project_id = ${projectId})`;
}
