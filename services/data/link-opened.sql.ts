import type { Db } from '../core/infra/db.js';
import { emitProductEvent, emitStageMoves, type StageMove } from './product-events.sql.js';

// A link is opened when its viewer is in the room: their visit has started (the shell ran) and
// they have said who they are. A viewer who only met the who-are-you prompt has not opened it: no
// "opened" alert, webhook or stage (issue 47, item 8). Called by whichever comes second: the
// visit's start for a session that already has a name, the answer for one whose visit has started.

/** What of the room's session deciding a link's opening. */
export interface OpeningSession {
  workspaceId: string;
  projectId: string;
  linkId: string | null;
  preview: boolean;
  viewerName: string | null;
  viewerCompany: string | null;
}

/** Marks the session's link opened (sent → opened; later stages stay), emitting its first open once. */
export async function markLinkOpened(tx: Db, session: OpeningSession, visitId: string): Promise<void> {
  if (session.preview || !session.linkId || !session.viewerName) return;
  // The link's state before the update, read in the statement itself (held by `for update`),
  // tells whether this is its first open and whether its stage moved: each is a product event.
  const [link] = await tx<(StageMove & { wasOpened: boolean; placed: boolean })[]>`
    update links l set opened_at = coalesce(l.opened_at, now()), last_opened_at = now(),
                       stage = case when l.stage = 'sent' then 'opened' else l.stage end
    from (select id, opened_at, stage from links where id = ${session.linkId} for update) old
    where l.id = old.id
    returning l.id, l.workspace_id, l.project_id, l.viewer_name, old.opened_at is not null as was_opened,
              l.placed_stage is not null as placed, old.stage as from, l.stage as to`;
  if (link && !link.wasOpened) {
    await emitProductEvent(tx, {
      workspaceId: session.workspaceId,
      projectId: session.projectId,
      linkId: session.linkId,
      kind: 'link.opened',
      viewerName: session.viewerName,
      viewerCompany: session.viewerCompany,
      data: { visitId },
    });
  }
  // A stage the builder placed hides the evidence's: nothing the builder sees moved.
  if (link && !link.placed) await emitStageMoves(tx, [link]);
}
