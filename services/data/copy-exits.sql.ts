import type { Db } from '../core/infra/db.js';

// Copies that exited on their own (copy_exits, migration 00008): what the runner saw when a copy
// died, read back by the builder (GET /api/projects/:projectId/exits, `pitch logs`).

/** How many exits a project's list shows: the newest, enough to see a pattern. */
export const EXITS_SHOWN = 20;

export interface CopyExit {
  copyId: string;
  buildId: string;
  /** true: it had answered its health path (a crash); false: it failed to start. */
  healthy: boolean;
  exitCode: number | null;
  oom: boolean;
  output: string;
  at: Date;
}

export interface NewExit {
  copyId: string;
  workspaceId: string;
  projectId: string;
  buildId: string;
  healthy: boolean;
  exitCode: number | null;
  oom: boolean;
  output: string;
}

export async function insertExit(db: Db, e: NewExit): Promise<void> {
  await db`
    insert into copy_exits (copy_id, workspace_id, project_id, build_id, healthy, exit_code, oom, output)
    values (${e.copyId}, ${e.workspaceId}, ${e.projectId}, ${e.buildId}, ${e.healthy}, ${e.exitCode}, ${e.oom}, ${e.output})
    on conflict (copy_id) do nothing`;
}

/** A project's latest exits, newest first, within its workspace only. */
export async function exitsOfProject(db: Db, workspaceId: string, projectId: string, limit = EXITS_SHOWN): Promise<CopyExit[]> {
  return db<CopyExit[]>`
    select copy_id, build_id, healthy, exit_code, oom, output, at
    from copy_exits
    where workspace_id = ${workspaceId} and project_id = ${projectId}
    order by at desc, id desc
    limit ${limit}`;
}
