import type { Db } from '../core/infra/db.js';

// The team's record (spec 6: joining a team is written in the team's record), with the other
// changes to who is in it and what it is called.

export type TeamEventKind =
  | 'team.create'
  | 'team.rename'
  | 'team.delete'
  | 'member.join'
  | 'member.leave'
  | 'member.remove'
  | 'member.role'
  | 'invitation.create'
  | 'invitation.revoke';

export async function recordTeamEvent(
  tx: Db,
  e: { workspaceId: string; kind: TeamEventKind; actorId: string | null; subjectId?: string | null; detail?: Record<string, unknown> },
) {
  await tx`
    insert into workspace_history (workspace_id, kind, actor_id, subject_id, detail)
    values (${e.workspaceId}, ${e.kind}, ${e.actorId}, ${e.subjectId ?? null}, ${JSON.stringify(e.detail ?? {})}::text::jsonb)`;
}

export interface TeamEventRow {
  kind: TeamEventKind;
  actorId: string | null;
  subjectId: string | null;
  detail: Record<string, unknown>;
  at: Date;
}

/** The record, newest first. */
export function teamHistory(sql: Db, workspaceId: string) {
  return sql<TeamEventRow[]>`
    select kind, actor_id, subject_id, detail, at from workspace_history where workspace_id = ${workspaceId} order by at desc, id desc`;
}
