import { Readable } from 'node:stream';
import { csvRow } from '../../core/csv.js';
import type { Db } from '../../core/db.js';
import { lineOf, statementSource } from '../../data/statement-figures.js';
import { eachLineBatch, type MonthBounds } from '../../data/usage-statements.sql.js';

// The statement as CSV (issue 46): the same lines as the JSON statement, every one of them, in the
// same order. Streamed from a database cursor 500 lines at a time, so a month of many copies
// costs the api one batch of memory, never the whole month.

const header = ['project_id', 'project', 'copy_id', 'kind', 'corrects_month', 'started_at', 'ended_at', 'seconds', 'event_seqs'];

/** The CSV's bytes, as a stream of records (CRLF), header first. */
export async function statementCsv(db: Db, workspaceId: string, month: MonthBounds): Promise<Readable> {
  const { lines, projects } = await statementSource(db, workspaceId, month);
  const names = new Map(projects.map((p) => [p.projectId, p.name]));
  async function* records() {
    yield csvRow(header);
    for await (const batch of eachLineBatch(db, lines, 500)) {
      for (const row of batch) {
        const l = lineOf(row);
        yield csvRow([
          l.projectId,
          names.get(l.projectId) ?? '',
          l.copyId,
          l.kind,
          l.correctsMonth,
          l.startedAt,
          l.endedAt,
          l.seconds,
          l.eventSeqs.join(' '),
        ]);
      }
    }
  }
  return Readable.from(records());
}
