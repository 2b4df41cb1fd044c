import { Link, useParams } from 'wouter';
import type { Journey } from '@demo-rooms/contract';
import { useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { Page, Section } from '../../ui/Page.js';
import { duration, Time } from '../../ui/Time.js';
import '../../ui/figures.css';
import './analytics.css';

// One link's journey: who used it, each session's timeline, time with the tab out of view, and
// how far through the story they went. 402 `analytics` on Free, said in words by Async.

type Event = Journey['sessions'][number]['timeline'][number];
type Names = Journey['names'];

/** The name the API gives an id (app, page, step, scenario), else the id itself. */
const named = (map: Record<string, string>, id: string | null) => (id === null ? null : (map[id] ?? id));

const WORDS: Record<Event['kind'], (e: Event, n: Names) => string> = {
  entry: () => 'Entered the room',
  time: (e, n) => `${duration(e.seconds)} on ${named(n.time, e.subject) ?? 'the room'}`,
  step: (e, n) => `Took the story step “${named(n.steps, e.subject) ?? ''}”`,
  scenario: (e, n) => (e.subject === 'reset' ? 'Reset the demo data' : `Ran the scenario “${named(n.scenarios, e.subject) ?? ''}”`),
  answer: (e) => `Answered “${e.subject ?? ''}” to What happens next`,
  comment: (e, n) => `Left a comment on ${named(n.time, e.subject) ?? 'the room'}`,
  hidden: () => 'Switched away from the tab',
  shown: () => 'Came back to the tab',
  leave: () => 'Left',
};

export default function JourneyArea() {
  const { linkId } = useParams<{ linkId: string }>();
  const journey = useOp('journey', { params: { linkId } });
  return (
    <Async query={journey} lines={10}>
      {(j) => (
        <Page
          title={`Journey of ${j.link.viewerName}`}
          lead={
            <>
              Stage <span className="badge">{j.link.stage}</span> · <Link href="~/pipeline">Back to the pipeline</Link>
            </>
          }
        >
          <JourneyTotals journey={j} />
          {j.tour && (
            <Section title="Story progress">
              <p>
                {j.tour.taken} of {j.tour.steps} steps taken
              </p>
              <div
                className="progress"
                role="progressbar"
                aria-label="Story progress"
                aria-valuemin={0}
                aria-valuemax={j.tour.steps}
                aria-valuenow={j.tour.taken}
              >
                <span style={{ width: `${j.tour.steps ? (100 * j.tour.taken) / j.tour.steps : 0}%` }} />
              </div>
            </Section>
          )}
          <People people={j.people} />
          {j.sessions.length === 0 && (
            <div className="empty">
              <p>No sessions yet. Send the link; each visit through it shows here step by step.</p>
            </div>
          )}
          {j.sessions.map((s, i) => (
            <SessionSection key={s.id} session={s} index={i} journey={j} />
          ))}
        </Page>
      )}
    </Async>
  );
}

/** The journey in four figures: sessions, people, time in view, time outside the room. */
function JourneyTotals({ journey: j }: { journey: Journey }) {
  return (
    <div className="totals">
      <div className="total">
        <span className="n">{j.sessions.length}</span>
        <span className="muted">Sessions</span>
      </div>
      <div className="total">
        <span className="n">{j.people.length}</span>
        <span className="muted">People</span>
      </div>
      <div className="total">
        <span className="n">{duration(j.sessions.reduce((a, s) => a + Object.values(s.time).reduce((x, y) => x + y, 0), 0))}</span>
        <span className="muted">Time in view</span>
      </div>
      <div className="total">
        <span className="n">{duration(j.outside.reduce((a, o) => a + o.seconds, 0))}</span>
        <span className="muted">Time outside the room</span>
      </div>
    </div>
  );
}

/** Each person who opened the link, by the name and email they gave. */
function People({ people }: { people: Journey['people'] }) {
  return (
    <Section title="People">
      {people.length === 0 ? (
        <p className="muted">Nobody has opened this link yet. When they do, each name they give shows here.</p>
      ) : (
        <table className="stack">
          <thead>
            <tr>
              <th>Name</th>
              <th>Email</th>
              <th>Sessions</th>
            </tr>
          </thead>
          <tbody>
            {people.map((p, i) => (
              <tr key={i}>
                <td data-label="Name">{p.name ?? <span className="muted">no name given</span>}</td>
                <td data-label="Email">{p.email ?? '—'}</td>
                <td data-label="Sessions">{p.sessions}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}

/** One session: when and on what, how it ended, time outside the room, and its timeline. */
function SessionSection({ session: s, index: i, journey: j }: { session: Journey['sessions'][number]; index: number; journey: Journey }) {
  const outside = j.outside.find((o) => o.sessionId === s.id)?.seconds ?? 0;
  return (
    <Section title={`Session ${i + 1}: ${s.name ?? 'no name given'}`}>
      <p className="muted">
        <Time at={s.startedAt} /> · {s.device ?? 'unknown device'} ·{' '}
        {s.endedAt && s.endReason === 'quiet' ? (
          <>
            ended <Time at={s.endedAt} />, when the browser went silent (closed or offline without saying so)
          </>
        ) : s.endedAt ? (
          <>
            ended <Time at={s.endedAt} />
          </>
        ) : (
          'may still be going'
        )}
        {outside > 0 && <> · {duration(outside)} outside the room</>}
      </p>
      <ol className="timeline" aria-label={`Timeline of session ${i + 1}`}>
        {s.timeline.map((e, k) => (
          <li key={k}>
            <Time at={e.at} /> · {WORDS[e.kind](e, j.names)}
          </li>
        ))}
      </ol>
    </Section>
  );
}
