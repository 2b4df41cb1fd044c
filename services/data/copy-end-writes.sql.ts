import type { Db } from '../core/infra/db.js';
import { type CopyRow, copyColumns, liveStates } from './copies.sql.js';

// A copy's end (stop or fail, with its reason and event) for a batch of copies in one statement
// (runner/copies/end-writes.ts groups them): a crowd leaving ended a copy a statement each, and
// a burst's stops were a third of its statements (docs/scale.md, "Sixth round"). As `transition`
// does for one copy: only copies not ended yet move, `seq` is bumped, and the event is written
// under the new seq by the same statement, so an end asked twice ends and counts once.

export interface CopyEnd {
  id: string;
  /** end_reason: left, idle, build-changed, … */
  reason: string;
  kind: 'stop' | 'fail';
  /** The event's detail. */
  detail: string;
}

/** Ends the copies still queued or live; the rows moved (ended), each once, whatever the order asked. */
export async function endCopies(db: Db, ends: CopyEnd[]): Promise<CopyRow[]> {
  if (!ends.length) return [];
  return db<CopyRow[]>`
    with given as (
      -- A copy named twice ends as its first ask says (the one the group commit answers with the row).
      select distinct on (id) id, reason, kind, detail
      from rows from (jsonb_to_recordset(${db.json(ends as never)}) as (id uuid, reason text, kind text, detail text)) with ordinality as g(id, reason, kind, detail, n)
      order by id, n
    ), moved as (
      update runner_copies c set state = 'ended', seq = c.seq + 1, end_reason = g.reason, ended_at = clock_timestamp()
      from given g
      where c.id = g.id and c.state = any(${['queued', ...liveStates] as string[]})
      returning c.*
    ), written as (
      insert into copy_events (copy_id, seq, workspace_id, project_id, build_id, kind, detail, at)
      select m.id, m.seq, m.workspace_id, m.project_id, m.build_id, g.kind, g.detail, clock_timestamp()
      from moved m join given g on g.id = m.id
      on conflict (copy_id, seq) do nothing
    )
    select ${db.unsafe(copyColumns)} from moved`;
}
