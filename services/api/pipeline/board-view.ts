import type { BoardCard, PipelineRec, NextStepKind } from '@demo-rooms/contract';
import type { ClaimRow } from '../../data/link-claims.sql.js';
import type { BoardRow } from '../../data/pipeline.sql.js';
import { linkView } from '../links/link-view.js';

// Board rows as the contract's PipelineRec and BoardCard (spec 2.4; docs/decisions/pipeline-and-evidence.md).

const same = (a: string | null, b: string | null) => (a ?? '').trim().toLowerCase() === (b ?? '').trim().toLowerCase();

/** A card lists at most this many of who else came: the newest (issue 28). */
export const forwardedShown = 20;

/**
 * Who else is behind the link: a claim under another name or email than the link was made for,
 * or, when it gives no name, from another browser than the first claim's. A claim under the
 * link's own name (and its email, when both have one) from another browser is the same person on
 * another device (their phone), not a forward. `claims` come oldest first; the card keeps the
 * newest `forwardedShown`, oldest first, and says how many there were in all.
 */
export function forwardedOf(
  row: Pick<BoardRow, 'viewerName' | 'viewerEmail'>,
  claims: ClaimRow[],
): { shown: BoardCard['forwarded']; count: number } {
  const firstBrowser = claims.find((c) => c.browserHash)?.browserHash ?? null;
  const all = claims.flatMap((c) => {
    const why: ('name' | 'email' | 'browser')[] = [];
    if (c.name && !same(c.name, row.viewerName)) why.push('name');
    if (c.email && row.viewerEmail && !same(c.email, row.viewerEmail)) why.push('email');
    const ownName = c.name !== null && !why.length;
    if (!ownName && c.browserHash && firstBrowser && !c.browserHash.equals(firstBrowser)) why.push('browser');
    return why.length ? [{ c, why }] : [];
  });
  const shown = all.slice(-forwardedShown).map(({ c, why }) => ({
    name: c.name,
    email: c.email,
    device: c.device,
    firstSeenAt: c.firstSeenAt.toISOString(),
    lastSeenAt: c.lastSeenAt.toISOString(),
    why,
  }));
  return { shown, count: all.length };
}

export function pipelineView(row: BoardRow): PipelineRec {
  return { ...linkView(row), projectId: row.projectId, projectName: row.projectName };
}

export function boardCardView(row: BoardRow, claims: ClaimRow[]): BoardCard {
  const forwarded = forwardedOf(row, claims);
  return {
    ...pipelineView(row),
    suggested: row.stage,
    placed: row.placedStage !== null,
    outcome: row.outcome,
    followUp: { on: row.followUpDay, note: row.followUpNote },
    notes: row.notes,
    signals: {
      lastSeenAt: row.lastSeenAt?.toISOString() ?? null,
      activeSeconds: row.activeSeconds,
      visits: row.visits,
      appsSeen: row.appsSeen,
      storySteps: row.storySteps,
      answers: row.answers as NextStepKind[],
      comments: row.comments,
    },
    forwarded: forwarded.shown,
    forwardedCount: forwarded.count,
    claims: new Set(claims.map((c) => c.name?.trim().toLowerCase()).filter(Boolean)).size,
  };
}
