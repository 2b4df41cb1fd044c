import type { Sql } from '../../services/core/infra/db.js';
import { groupCommit, oncePerClient } from '../../services/core/infra/group-commit.js';
import { sessionCopies, type CopyRow, type SessionRead, type SessionTouch } from '../../services/data/copies.sql.js';

// A host's reads of its viewers' copies, batched (services/core/infra/group-commit.ts): every enter,
// long-poll re-read, activity and leave asks for its session's copy (and marks it seen or active), and a
// crowd asks thousands of times a second. Whatever asks while a read is in flight goes in the
// next one, so a quiet host reads at once and a crowd's reads are one statement a few hundred
// sessions at a time (docs/scale.md, "Sixth round"), on one connection of the pool, not ten.

export type SessionReader = (sessionId: string, touch: SessionTouch, floorMs?: number) => Promise<CopyRow | null>;

/** The host's reader: one per database client, so the enters, long-polls and leaves of a host share its batches. */
export const sessionReaderOf = oncePerClient((sql: Sql): SessionReader => {
  const read = groupCommit((asks: SessionRead[]) => sessionCopies(sql, asks));
  return (sessionId, touch, floorMs = 2_000) => read({ sessionId, touch, floorMs });
});
