import type { Db } from '../core/infra/db.js';

// Appeals of a blocked or taken-off card (spec 3 Card; migrations/00014), and the operator's
// decisions on cards and appeals (review_decisions).

export interface AppealRow {
  id: string;
  projectId: string;
  workspaceId: string;
  title: string;
  line: string;
  buildId: string | null;
  message: string;
  status: 'open' | 'upheld' | 'denied';
  createdAt: Date;
  decidedAt: Date | null;
  decisionNote: string | null;
}

export async function latestAppeal(sql: Db, projectId: string): Promise<AppealRow | null> {
  const [row] = await sql<AppealRow[]>`select * from appeals where project_id = ${projectId} order by created_at desc limit 1`;
  return row ?? null;
}

export async function openAppeals(sql: Db) {
  return sql<(AppealRow & { slug: string })[]>`
    select a.*, p.slug from appeals a join projects p on p.id = a.project_id where a.status = 'open' order by a.created_at`;
}

export async function insertAppeal(
  tx: Db,
  a: Omit<AppealRow, 'id' | 'status' | 'createdAt' | 'decidedAt' | 'decisionNote'> & { createdBy: string },
) {
  const [row] = await tx<AppealRow[]>`
    insert into appeals (project_id, workspace_id, title, line, build_id, message, created_by)
    values (${a.projectId}, ${a.workspaceId}, ${a.title}, ${a.line}, ${a.buildId}, ${a.message}, ${a.createdBy})
    returning *`;
  return row;
}

/** Decides an open appeal; null when it is not open (decided already, or unknown). */
export async function decideAppeal(tx: Db, appealId: string, status: 'upheld' | 'denied', note: string | null): Promise<AppealRow | null> {
  const [row] = await tx<AppealRow[]>`
    update appeals set status = ${status}, decided_at = now(), decision_note = ${note}
    where id = ${appealId} and status = 'open' returning *`;
  return row ?? null;
}

export async function recordDecision(
  tx: Db,
  d: {
    projectId: string | null;
    appealId?: string | null;
    decision: 'approve' | 'reject' | 'uphold' | 'deny' | 'takedown' | 'restore';
    note?: string | null;
  },
) {
  await tx`insert into review_decisions (project_id, appeal_id, decision, note) values (${d.projectId}, ${d.appealId ?? null}, ${d.decision}, ${d.note ?? null})`;
}
