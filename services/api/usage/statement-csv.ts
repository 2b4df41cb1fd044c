import { Readable } from 'node:stream';
import { csvRow } from '../../core/rules/csv.js';
import type { Db } from '../../core/infra/db.js';
import { lineOf, statementSource } from '../../data/statement-figures.js';
import { eachLineBatch, type MonthBounds } from '../../data/usage-statements.sql.js';

// The statement as CSV (issue 46): the same lines as the JSON statement, every one of them, in the
// same order. Streamed from a database cursor 500 lines at a time, so a month of many copies
// costs the api one batch of memory, never the whole month. The cursor holds a pooled connection
// while the client reads: a download still running after `deadlineMs` is cut (the client sees a
// broken transfer, never a short file that looks whole), so a client that stops reading cannot
// hold it for long.

/** How long a download may take (ms): 100,000 lines take a few seconds on a slow link. */
export const csvDeadlineMs = 120_000;

const header = ['project_id', 'project', 'copy_id', 'kind', 'corrects_month', 'started_at', 'ended_at', 'seconds', 'event_seqs'];

/** The CSV's bytes, as a stream of records (CRLF), header first. */
export async function statementCsv(db: Db, workspaceId: string, month: MonthBounds, deadlineMs = csvDeadlineMs): Promise<Readable> {
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
  const stream = Readable.from(records());
  const deadline = setTimeout(() => stream.destroy(new Error('the statement CSV took too long')), deadlineMs).unref();
  stream.on('close', () => clearTimeout(deadline));
  return stream;
}
