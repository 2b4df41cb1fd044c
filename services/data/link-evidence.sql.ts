import type { Db } from '../core/infra/db.js';
import { emitStageMoves, type StageMove } from './product-events.sql.js';

// How what a viewer does moves their link's stage (spec 3 leaves it open; docs/decisions/pipeline-and-evidence.md).
// Evidence only ever moves a link forward: sent → opened (the
// first real entry, visits.sql.ts) → engaged (sustained time, a story step, a scenario, a
// comment) → the viewer's answer (yes, later or no; the latest answer wins). A preview records
// nothing, so it moves nothing.

/** Visible seconds in one visit that count as sustained interaction. */
export const engagedSeconds = 60;

export type Evidence = 'engaged' | 'yes' | 'later' | 'no';

/**
 * Moves the link's stage on by `evidence`; never back, and an answer is only replaced by another.
 * A real move is a link.stage_changed product event, written in the caller's transaction, unless
 * the builder placed the link (then the stage they see did not move).
 */
export async function recordEvidence(tx: Db, linkId: string | null, evidence: Evidence) {
  if (!linkId) return;
  const which = evidence === 'engaged' ? tx`and old.stage in ('sent', 'opened')` : tx``;
  const moved = await tx<(StageMove & { placed: boolean })[]>`
    update links l set stage = ${evidence}, opened_at = coalesce(l.opened_at, now())
    from (select id, stage from links where id = ${linkId} for update) old
    where l.id = old.id ${which}
    returning l.id, l.workspace_id, l.project_id, l.viewer_name, l.placed_stage is not null as placed, old.stage as from, l.stage as to`;
  await emitStageMoves(
    tx,
    moved.filter((m) => !m.placed),
  );
}
