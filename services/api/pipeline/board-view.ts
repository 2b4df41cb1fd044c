import type { BoardCard, PipelineRec } from '../../contract/resources/link.js';
import type { NextStepKind } from '../../contract/resources/room-setup.js';
import type { ClaimRow } from '../../data/link-claims.sql.js';
import type { BoardRow } from '../../data/pipeline.sql.js';
import { linkView } from '../links/link-view.js';

// Board rows as the contract's PipelineRec and BoardCard (spec 2.4; docs/decisions.md "The
// pipeline").

const same = (a: string | null, b: string | null) => (a ?? '').trim().toLowerCase() === (b ?? '').trim().toLowerCase();

/**
 * Who else is behind the link: a claim under another name or email than the link was made for,
 * or from another browser than the first claim's.
 */
export function forwardedOf(row: Pick<BoardRow, 'viewerName' | 'viewerEmail'>, claims: ClaimRow[]): BoardCard['forwarded'] {
  const firstBrowser = claims.find((c) => c.browserHash)?.browserHash ?? null;
  return claims.flatMap((c) => {
    const why: ('name' | 'email' | 'browser')[] = [];
    if (c.name && !same(c.name, row.viewerName)) why.push('name');
    if (c.email && row.viewerEmail && !same(c.email, row.viewerEmail)) why.push('email');
    if (c.browserHash && firstBrowser && !c.browserHash.equals(firstBrowser)) why.push('browser');
    return why.length ? [{ name: c.name, email: c.email, device: c.device, firstSeenAt: c.firstSeenAt.toISOString(), lastSeenAt: c.lastSeenAt.toISOString(), why }] : [];
  });
}

export function pipelineView(row: BoardRow): PipelineRec {
  return { ...linkView(row), projectId: row.projectId, projectName: row.projectName };
}

export function boardCardView(row: BoardRow, claims: ClaimRow[]): BoardCard {
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
    forwarded: forwardedOf(row, claims),
    claims: new Set(claims.map((c) => c.name?.trim().toLowerCase()).filter(Boolean)).size,
  };
}
