import { useMemo, useState } from 'react';
import { Link } from 'wouter';
import type { AnalyticsDay, Figures, Names, WorkspaceAnalytics } from '@demo-rooms/contract';
import { useOp } from '../../api/hooks.js';
import { Paywall } from '../../ui/Paywall.js';
import { Async } from '../../ui/Async.js';
import { Field } from '../../ui/Field.js';
import { Page, Section } from '../../ui/Page.js';
import { ProjectSelect } from '../../ui/ProjectSelect.js';
import { Refusal } from '../../ui/Refusal.js';
import { duration } from '../../ui/Time.js';
import { Chart } from './Chart.js';
import '../../ui/figures.css';
import './analytics.css';

// What the rooms saw over a range of UTC days: the whole workspace or one project. On Free the
// API answers the total views only; the charts say they need a paid plan.

const day = (d: Date) => d.toISOString().slice(0, 10);
const daysAgo = (n: number) => day(new Date(Date.now() - n * 864e5));
const PRESETS = [7, 14, 30, 90];

export default function AnalyticsArea() {
  const [from, setFrom] = useState(daysAgo(13));
  const [to, setTo] = useState(daysAgo(0));
  const [projectId, setProjectId] = useState('');
  const workspace = useOp('workspaceAnalytics', { params: { from, to } }, { enabled: !projectId });
  const project = useOp('projectAnalytics', { params: { projectId, from, to } }, { enabled: !!projectId });
  const query = projectId ? project : workspace;
  const rangeError = query.isError ? query.error : undefined;
  return (
    <Page title="Analytics" lead="Views, viewers and time spent in your rooms, per UTC day.">
      <div className="range" role="group" aria-label="Range">
        <div className="field">
          <ProjectSelect id="analytics-project" value={projectId} onChange={setProjectId} />
        </div>
        <Field label="From" type="date" name="from" value={from} onChange={(e) => setFrom(e.target.value)} />
        <Field label="To" type="date" name="to" value={to} onChange={(e) => setTo(e.target.value)} />
        <div className="row">
          {PRESETS.map((n) => (
            <button
              key={n}
              type="button"
              className="secondary"
              aria-pressed={from === daysAgo(n - 1) && to === daysAgo(0)}
              onClick={() => {
                setFrom(daysAgo(n - 1));
                setTo(daysAgo(0));
              }}
            >
              {n} days
            </button>
          ))}
        </div>
      </div>
      {rangeError !== undefined && query.data !== undefined && <Refusal error={rangeError} />}
      <Async query={query} lines={10}>
        {(a) =>
          a.full ? (
            <>
              <Totals totals={a.totals} />
              <Charts days={a.days} names={a.names} />
              {projectsOf(a).length > 0 && (
                <Section title="By project">
                  <table className="stack">
                    <thead>
                      <tr>
                        <th>Project</th>
                        <th>Views</th>
                        <th>Viewers</th>
                        <th>Time</th>
                        <th>Comments</th>
                      </tr>
                    </thead>
                    <tbody>
                      {projectsOf(a).map((p) => (
                        <tr key={p.projectId}>
                          <td data-label="Project">
                            <Link href={`/projects/${p.projectId}/activity`}>{p.name}</Link>
                          </td>
                          <td data-label="Views">{p.totals.views}</td>
                          <td data-label="Viewers">{p.totals.viewers}</td>
                          <td data-label="Time">{duration(p.totals.activeSeconds)}</td>
                          <td data-label="Comments">{p.totals.comments}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </Section>
              )}
            </>
          ) : (
            <>
              <div className="totals">
                <Total label="Views" value={a.totals.views} />
              </div>
              <Paywall upgrade="Solo">Charts, viewers, time per app and answers. On Free you see the total views.</Paywall>
            </>
          )
        }
      </Async>
    </Page>
  );
}

function Total({ label, value }: { label: string; value: string | number }) {
  return (
    <div className="total">
      <span className="n">{value}</span>
      <span className="muted">{label}</span>
    </div>
  );
}

function Totals({ totals }: { totals: Figures }) {
  return (
    <div className="totals">
      <Total label="Views" value={totals.views} />
      <Total label="Viewers" value={totals.viewers} />
      <Total label="Time in view" value={duration(totals.activeSeconds)} />
      <Total label="Answers" value={Object.values(totals.answers).reduce((a, b) => a + b, 0)} />
      <Total label="Comments" value={totals.comments} />
      <Total label="Story completions" value={totals.storyCompletions} />
    </div>
  );
}

function Charts({ days, names }: { days: AnalyticsDay[]; names: Names }) {
  const labels = useMemo(() => days.map((d) => d.day), [days]);
  // Viewers are often as many as views: its line is dashed and drawn thinner over Views, so the
  // solid Views line still shows through the gaps when the two are equal.
  const visits = useMemo(
    () => [
      { label: 'Views', values: days.map((d) => d.views), width: 3 },
      { label: 'Viewers', values: days.map((d) => d.viewers), dash: [6, 6] },
    ],
    [days],
  );
  // The names the API gives (the workspace's carry their project: "Shop · Website"), never raw ids.
  const apps = useMemo(() => {
    const ids = [...new Set(days.flatMap((d) => Object.keys(d.time)))];
    return ids.map((id) => ({ label: names.time[id] ?? id, values: days.map((d) => Math.round(((d.time[id] ?? 0) / 60) * 10) / 10) }));
  }, [days, names]);
  return (
    <Section title="Over time">
      <Chart caption="Views and viewers per day" days={labels} series={visits} unit="count" />
      {apps.length > 0 ? (
        <Chart caption="Time per app per day" days={labels} series={apps} unit="minutes" />
      ) : (
        <p className="muted">No time in view recorded in this range yet.</p>
      )}
    </Section>
  );
}

type Split = Extract<WorkspaceAnalytics, { full: true }>['projects'];
/** The split by project, which only workspaceAnalytics answers. */
const projectsOf = (a: object): Split => ('projects' in a ? (a.projects as Split) : []);
