import type { NextStepKind } from '@demo-rooms/contract';
import type { Db, Sql } from '../core/infra/db.js';
import { recordEvidence } from './link-evidence.sql.js';
import { emitProductEvent } from './product-events.sql.js';
import type { RoomSessionRow } from './room-sessions.sql.js';

// Viewers' answers to What happens next (spec 2.5 Response; migrations/00010). One per step per
// visit: a second click, or a second tab of the same visit, finds the first.

export interface ResponseRow {
  id: string;
  linkId: string;
  viewerName: string;
  step: NextStepKind;
  detail: Record<string, unknown> | null;
  createdAt: Date;
}

const answers = new Set<NextStepKind>(['yes', 'later', 'no']);

/**
 * Stores the session's answer to `step`, or finds the one this visit already gave. An answer of
 * yes, later or no moves the link to that stage. `created` is false for the earlier answer.
 */
export async function recordResponse(
  sql: Sql,
  session: RoomSessionRow,
  step: NextStepKind,
  detail: Record<string, unknown> | null,
): Promise<{ response: ResponseRow; created: boolean }> {
  if (!session.linkId) throw new Error('only a session through a link records answers');
  return sql.begin(async (tx) => {
    const [created] = await tx<ResponseRow[]>`
      insert into responses (workspace_id, project_id, link_id, session_id, visit_id, viewer_name, step, detail)
      values (${session.workspaceId}, ${session.projectId}, ${session.linkId}, ${session.id}, ${session.visitId},
              ${session.viewerName ?? ''}, ${step}, ${detail === null ? null : JSON.stringify(detail)}::text::jsonb)
      on conflict (visit_id, step) do nothing
      returning id, link_id, viewer_name, step, detail, created_at`;
    if (created) {
      // The answer's detail as the viewer typed it (a question's text, a colleague's name and email), as one line.
      const typed = Object.values(detail ?? {}).filter((v): v is string => typeof v === 'string' && v.length > 0);
      await emitProductEvent(tx, {
        workspaceId: session.workspaceId,
        projectId: session.projectId,
        linkId: session.linkId,
        kind: 'next_step.answered',
        viewerName: created.viewerName || null,
        viewerCompany: session.viewerCompany,
        data: { answer: step, detail: typed.length ? typed.join(', ').slice(0, 2000) : null },
      });
      if (answers.has(step)) await recordEvidence(tx, session.linkId, step as 'yes' | 'later' | 'no');
      return { response: created, created: true };
    }
    const [earlier] = await tx<ResponseRow[]>`
      select id, link_id, viewer_name, step, detail, created_at from responses where visit_id = ${session.visitId} and step = ${step}`;
    return { response: earlier, created: false };
  });
}

/** Every answer of the project, newest first. */
export function responsesOf(sql: Db, projectId: string) {
  return sql<ResponseRow[]>`
    select id, link_id, viewer_name, step, detail, created_at from responses
    where project_id = ${projectId} order by created_at desc, id desc`;
}

/** The steps this visit already answered, for the room to show them as sent. */
export async function stepsAnsweredIn(sql: Db, visitId: string | null): Promise<NextStepKind[]> {
  if (!visitId) return [];
  const rows = await sql<{ step: NextStepKind }[]>`select step from responses where visit_id = ${visitId}`;
  return rows.map((r) => r.step);
}
