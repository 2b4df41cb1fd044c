import type { Db } from '../core/db.js';

// How what a viewer does moves their link's stage (spec 3 leaves it open; docs/decisions.md,
// "A link's stage by evidence"). Evidence only ever moves a link forward: sent → opened (the
// first real entry, visits.sql.ts) → engaged (sustained time, a story step, a scenario, a
// comment) → the viewer's answer (yes, later or no; the latest answer wins). A preview records
// nothing, so it moves nothing.

/** Visible seconds in one visit that count as sustained interaction. */
export const engagedSeconds = 60;

export type Evidence = 'engaged' | 'yes' | 'later' | 'no';

/** Moves the link's stage on by `evidence`; never back, and an answer is only replaced by another. */
export async function recordEvidence(tx: Db, linkId: string | null, evidence: Evidence) {
  if (!linkId) return;
  if (evidence === 'engaged') {
    await tx`update links set stage = 'engaged', opened_at = coalesce(opened_at, now())
             where id = ${linkId} and stage in ('sent', 'opened')`;
    return;
  }
  await tx`update links set stage = ${evidence}, opened_at = coalesce(opened_at, now()) where id = ${linkId}`;
}
