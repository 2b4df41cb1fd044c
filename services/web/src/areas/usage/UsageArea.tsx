import type { ContainerUsage } from '@demo-rooms/contract';
import { useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { Page, Section } from '../../ui/Page.js';
import { Statement } from './Statement.js';
import '../../ui/figures.css';
import './usage.css';

// Demo containers this UTC month, a month's statement (what billing reads, issue 46), and the
// plan's allowance. A workspace with static builds only runs no containers: it says so and how
// to start one.

export default function UsageArea() {
  const usage = useOp('containerUsage');
  const billing = useOp('getBilling');
  const allowance = billing.data?.allowance as Record<string, unknown> | undefined;
  const copies = typeof allowance?.containerCopies === 'number' ? allowance.containerCopies : null;
  // A plan of no copies (Free) runs static builds only: it must not promise a copy per viewer, nor
  // say "Up to 0" (issue 47).
  const staticOnly = copies === 0;
  return (
    <Page title="Container usage" lead="Demo containers started for your viewers this month (UTC).">
      <div className="usage-month">
        <Async query={usage} lines={6}>
          {(u) =>
            u.runs === 0 && u.failedStarts === 0 ? (
              <div className="empty">
                {staticOnly ? (
                  <p data-testid="usage-static-only">
                    No containers ran in {u.month}: your plan shows static builds only. A paid plan runs container builds (a Dockerfile in
                    your project), each viewer in their own copy, counted here.
                  </p>
                ) : (
                  <p>
                    No containers ran in {u.month}. Static builds need none; deploy a container build (a Dockerfile in your project,{' '}
                    <code>pitch deploy</code>) and each viewer gets their own copy of it, counted here.
                  </p>
                )}
              </div>
            ) : (
              <MonthFigures usage={u} />
            )
          }
        </Async>
      </div>
      <Statement />
      <Section title="Your plan">
        <Async query={billing} lines={3}>
          {(b) => (
            <>
              <p>
                Plan <span className="badge">{b.plan}</span>
                {b.suspended && (
                  <>
                    {' '}
                    <span className="badge bad">Suspended</span>
                  </>
                )}
              </p>
              {staticOnly && (
                <p data-testid="plan-copies">
                  Static builds only: your plan runs no container copies. Container builds come with a paid plan.
                </p>
              )}
              {copies !== null && !staticOnly && (
                <p data-testid="plan-copies">
                  Up to <strong>{copies}</strong> container copies at once
                  {typeof allowance?.warmCopies === 'number' ? <>, {allowance.warmCopies} kept warm</> : null}.
                </p>
              )}
              <Allowance
                label="Seats"
                used={(b.seats as { used?: number } | undefined)?.used}
                allowed={(b.seats as { allowed?: number } | undefined)?.allowed}
              />
              {typeof allowance?.viewerHours === 'number' && <p>Viewer-hours a month: {allowance.viewerHours}.</p>}
            </>
          )}
        </Async>
      </Section>
    </Page>
  );
}

/** The month's figures (runs, hours, cold start, failures, crashes, held back), then the same per project. */
function MonthFigures({ usage: u }: { usage: ContainerUsage }) {
  return (
    <>
      <div className="totals">
        <div className="total">
          <span className="n">{u.runs}</span>
          <span className="muted">Runs</span>
        </div>
        <div className="total">
          <span className="n">{u.containerHours.toFixed(1)}</span>
          <span className="muted">Container hours</span>
        </div>
        <div className="total">
          <span className="n">{seconds(u.medianColdStartMs)}</span>
          <span className="muted">Median cold start</span>
        </div>
        <div className="total">
          <span className="n">{u.failedStarts}</span>
          <span className="muted">Failed starts</span>
        </div>
        <div className="total">
          <span className="n">{u.crashes}</span>
          <span className="muted">Crashes</span>
        </div>
        <div className="total">
          <span className="n">{u.heldBack}</span>
          <span className="muted">Held back (limit reached)</span>
        </div>
      </div>
      {u.heldBack > 0 && <p className="notice">{u.heldBack} viewers waited because every copy your plan allows was in use.</p>}
      {u.projects.length > 0 && (
        <Section title="By project">
          <table className="stack">
            <thead>
              <tr>
                <th>Project</th>
                <th>Runs</th>
                <th>Container hours</th>
                <th>Median cold start</th>
                <th>Failed starts</th>
                <th>Crashes</th>
              </tr>
            </thead>
            <tbody>
              {u.projects.map((p) => (
                <tr key={p.projectId}>
                  <td data-label="Project">{p.name}</td>
                  <td data-label="Runs">{p.runs}</td>
                  <td data-label="Container hours">{p.containerHours.toFixed(1)}</td>
                  <td data-label="Median cold start">{seconds(p.medianColdStartMs)}</td>
                  <td data-label="Failed starts">{p.failedStarts}</td>
                  <td data-label="Crashes">{p.crashes}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Section>
      )}
    </>
  );
}

/** A cold start in seconds; a dash before any copy has started this month. */
const seconds = (ms: number | null) => (ms === null ? '—' : `${(ms / 1000).toFixed(1)} s`);

function Allowance({ label, used, allowed }: { label: string; used?: number; allowed?: number }) {
  if (typeof used !== 'number' || typeof allowed !== 'number') return null;
  return (
    <div className="field">
      <p>
        {label}: {used} of {allowed}
      </p>
      <div className="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={allowed} aria-valuenow={used}>
        <span style={{ width: `${Math.min(100, (100 * used) / Math.max(1, allowed))}%` }} />
      </div>
    </div>
  );
}
