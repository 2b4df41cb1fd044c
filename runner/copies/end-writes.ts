import type { Sql } from '../../services/core/infra/db.js';
import { groupCommit, type GroupCommit, oncePerClient } from '../../services/core/infra/group-commit.js';
import type { CopyRow } from '../../services/data/copies.sql.js';
import { type CopyEnd, endCopies } from '../../services/data/copy-end-writes.sql.js';
import { type KeptRunOf, keepEngineRuns } from '../../services/data/usage-reconciliation.sql.js';

// A copy's end and its removal's record of the engine, group-committed per host as its start's
// writes are (start-writes.ts): a crowd leaving at once ends hundreds of copies a second, and
// each end and each kept record was a statement of its own in the pool's queue. Those asked while
// one batch is written share the next statement (services/data/copy-end-writes.sql.ts,
// keepEngineRuns); a quiet host still writes at once. One set per database client, so the
// runner's host and a test's host each keep their own.

export interface EndWrites {
  /** Ends the copy if it is not ended yet: the row as ended, or null when it already was (or is unknown). */
  ended: GroupCommit<CopyEnd, CopyRow | null>;
  /** Keeps the engine's record of the copy's run (keepEngineRun). */
  engineRun: GroupCommit<KeptRunOf, void>;
}

export const endWritesOf = oncePerClient((sql: Sql): EndWrites => {
  const ended = groupCommit(async (ends: CopyEnd[]) => {
    const moved = new Map((await endCopies(sql, ends)).map((r) => [r.id, r]));
    // A copy asked to end twice in one batch ended once: the first ask has the row, as the
    // first of two racing transitions would.
    return ends.map((e) => {
      const row = moved.get(e.id) ?? null;
      moved.delete(e.id);
      return row;
    });
  });
  const engineRun = groupCommit(async (runs: KeptRunOf[]) => {
    await keepEngineRuns(sql, runs);
    return runs.map(() => undefined);
  });
  return { ended, engineRun };
});
