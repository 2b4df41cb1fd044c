import { useState } from 'react';
import type { UsageStatement } from '@demo-rooms/contract';
import { useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { Field } from '../../ui/Field.js';
import { Section } from '../../ui/Page.js';

// A month's statement (issue 46), the numbers billing reads: the same reply as GET
// /api/usage/statements/{month} and the same lines as its CSV, shown as the API gives them
// (seconds to the millisecond, hours to four decimals, dollars to a hundredth of a cent), so a
// reader can match the page, the CSV and an invoice figure for figure.

const thisMonth = () => new Date().toISOString().slice(0, 7);
/** Copies listed on the page; the CSV has every line. */
const shownLines = 100;

export function Statement() {
  const [month, setMonth] = useState(thisMonth());
  const valid = /^\d{4}-\d{2}$/.test(month);
  const statement = useOp('usageStatement', { params: { month } }, { enabled: valid });
  return (
    <Section title="Statement">
      <div className="statement-month" role="group" aria-label="Statement month">
        <Field label="Month (UTC)" type="month" name="month" value={month} max={thisMonth()} onChange={(e) => setMonth(e.target.value)} />
        <p>
          <a href={`/api/usage/statements/${month}.csv`} download={`usage-${month}.csv`}>
            Download CSV
          </a>
        </p>
      </div>
      {valid && (
        <Async query={statement} lines={6}>
          {(s) => <StatementFigures s={s} />}
        </Async>
      )}
    </Section>
  );
}

function StatementFigures({ s }: { s: UsageStatement }) {
  const names = new Map(s.projects.map((p) => [p.projectId, p.name]));
  return (
    <div data-testid="statement">
      <p>
        {s.month}{' '}
        {s.closed ? (
          <span className="badge" data-testid="statement-state">
            Closed
          </span>
        ) : (
          <>
            {/* A badge does not wrap: its words short, the why beside it (a phone is 360 px). */}
            <span className="badge warn" data-testid="statement-state">
              Open
            </span>{' '}
            figures move until the month is closed
          </>
        )}
      </p>
      <div className="totals">
        <Total label="Container seconds" value={s.containerSeconds} id="container-seconds" />
        <Total label="Container hours" value={s.containerHours} id="container-hours" />
        <Total label={`Spend (USD at ${s.copyHourUsd} an hour)`} value={s.spendUsd} id="spend" />
        <Total label="Corrections (seconds)" value={s.correctionSeconds} id="correction-seconds" />
        <Total label="Viewer-hours" value={s.viewerHours} id="viewer-hours" />
      </div>
      {s.projects.length === 0 ? (
        <p className="empty">Nothing to bill in {s.month}: no container ran and no viewer came.</p>
      ) : (
        <table className="stack" aria-label="Statement by project">
          <thead>
            <tr>
              <th>Project</th>
              <th>Copies</th>
              <th>Container seconds</th>
              <th>Container hours</th>
              <th>Corrections (s)</th>
              <th>Viewer-hours</th>
            </tr>
          </thead>
          <tbody>
            {s.projects.map((p) => (
              <tr key={p.projectId}>
                <td data-label="Project">{p.name}</td>
                <td data-label="Copies">{p.copies}</td>
                <td data-label="Container seconds">{p.containerSeconds}</td>
                <td data-label="Container hours">{p.containerHours}</td>
                <td data-label="Corrections (s)">{p.correctionSeconds}</td>
                <td data-label="Viewer-hours">{p.viewerHours}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {s.lines.length > 0 && (
        <table className="stack" aria-label="Statement by copy">
          <thead>
            <tr>
              <th>Copy</th>
              <th>Project</th>
              <th>Started (UTC)</th>
              <th>Ended (UTC)</th>
              <th>Seconds</th>
              <th>Corrects</th>
            </tr>
          </thead>
          <tbody>
            {s.lines.slice(0, shownLines).map((l) => (
              <tr key={`${l.copyId}-${l.correctsMonth ?? ''}`}>
                <td data-label="Copy">
                  <code>{l.copyId}</code>
                </td>
                <td data-label="Project">{names.get(l.projectId) ?? ''}</td>
                <td data-label="Started (UTC)">{l.startedAt}</td>
                <td data-label="Ended (UTC)">{l.endedAt ?? 'running'}</td>
                <td data-label="Seconds">{l.seconds}</td>
                <td data-label="Corrects">{l.correctsMonth ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {s.lineCount > shownLines && (
        <p className="muted">
          {shownLines} of {s.lineCount} lines shown: the CSV has every one.
        </p>
      )}
    </div>
  );
}

function Total({ label, value, id }: { label: string; value: number; id: string }) {
  return (
    <div className="total">
      <span className="n" data-testid={`statement-${id}`}>
        {value}
      </span>
      <span className="muted">{label}</span>
    </div>
  );
}
