import type { Sql } from '../../services/core/db.js';
import { groupCommit, type GroupCommit } from '../../services/core/group-commit.js';
import type { CopyRow } from '../../services/data/copies.sql.js';
import { type CopyEnd, endCopies } from '../../services/data/copy-end-writes.sql.js';

// A copy's end, group-committed per host as its start's writes are (start-writes.ts): a crowd
// leaving at once ends hundreds of copies a second, and each end was a statement of its own in
// the pool's queue. The copies ending while one batch is written share the next statement
// (services/data/copy-end-writes.sql.ts); a quiet host still writes at once. One per database
// client, so the runner's host and a test's host each keep their own.

/** Ends the copy if it is not ended yet: the row as ended, or null when it already was (or is unknown). */
export type EndWrite = GroupCommit<CopyEnd, CopyRow | null>;

const bySql = new WeakMap<Sql, EndWrite>();

export function endWritesOf(sql: Sql): EndWrite {
  let end = bySql.get(sql);
  if (!end) {
    end = groupCommit(async (ends: CopyEnd[]) => {
      const moved = new Map((await endCopies(sql, ends)).map((r) => [r.id, r]));
      // A copy asked to end twice in one batch ended once: the first ask has the row, as the
      // first of two racing transitions would.
      return ends.map((e) => {
        const row = moved.get(e.id) ?? null;
        moved.delete(e.id);
        return row;
      });
    });
    bySql.set(sql, end);
  }
  return end;
}
