import type { Sql } from '../core/infra/db.js';
import type { PlanName } from '../core/rules/plans.js';

export interface LiveBuild {
  buildId: string;
  projectId: string;
  workspaceId: string;
  plan: PlanName | null;
}

/**
 * Container builds viewers can meet now: live in a project that is not deleted, paused by the
 * platform or by its owner, in a workspace not suspended. The runner finds these itself on its
 * reconcile timer (a prepare call from the api is only a head start).
 */
export function liveContainerBuilds(sql: Sql, workspaces: string[] | null): Promise<LiveBuild[]> {
  return sql<LiveBuild[]>`
    select b.id as build_id, b.project_id, b.workspace_id, w.plan
    from projects p
    join builds b on b.id = p.live_build_id
    join workspaces w on w.id = p.workspace_id
    where b.kind = 'container' and p.deleted_at is null and p.taken_down_at is null and p.over_limit_at is null
      and w.suspended_at is null
      and not exists (select 1 from rooms r where r.project_id = p.id and r.paused_at is not null)
      ${workspaces ? sql`and p.workspace_id = any(${workspaces}::uuid[])` : sql``}`;
}
