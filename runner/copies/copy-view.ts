import type { Db } from '../../services/core/infra/db.js';
import type { CopyView } from '@demo-rooms/contract/runner';
import { copyById, placeOf, type CopyRow } from '../../services/data/copies.sql.js';

/**
 * When a queued viewer should ask again: 2 s at the head of the line, 20 ms more per place ahead,
 * at most 10 s (well inside the 120 s after which a viewer who stops asking is let go), ±20 %
 * (JupyterHub answers its crowd with a jittered Retry-After for the same reason: re-asks spread).
 */
export function askAgainIn(place: number, random = Math.random): number {
  const base = Math.min(10_000, 2_000 + 20 * (place - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** What the room is told of a copy record (api.schema.ts CopyView). */
export async function viewOf(db: Db, row: CopyRow | null): Promise<CopyView> {
  if (!row) return { state: 'gone', copyId: null, version: 'none' };
  const version = (extra = '') => `${row.id}:${row.seq}${extra}`;
  switch (row.state) {
    case 'queued': {
      // Counted by the read that found the row (copies.sql.ts sessionCopies), else counted now.
      const place = typeof row.place === 'number' ? row.place : await placeOf(db, row);
      // Let in (or gone) between the two reads: answer what it is now.
      if (place === 0) return viewOf(db, await copyById(db, row.id));
      return {
        state: 'queued',
        copyId: row.id,
        place,
        queuedSince: row.askedAt.toISOString(),
        retryMs: askAgainIn(place),
        version: version(`:${place}`),
      };
    }
    case 'creating':
    case 'starting':
    case 'warm':
      // One version for the whole start: a long-poll wakes when the copy runs (or fails), not at
      // each step of its start, which the viewer cannot tell apart.
      return { state: 'starting', copyId: row.id, version: `${row.id}:starting` };
    case 'running':
      // No address: the room reaches the copy through its host's data plane (the copy origin).
      return { state: 'running', copyId: row.id, version: version() };
    case 'paused':
      return { state: 'paused', copyId: row.id, version: version() };
    case 'ended': {
      const failed = row.endReason?.startsWith('failed:');
      return {
        state: failed ? 'failed' : 'gone',
        copyId: row.id,
        detail: failed ? row.endReason!.slice('failed:'.length) : (row.endReason ?? undefined),
        version: version(),
      };
    }
  }
}
