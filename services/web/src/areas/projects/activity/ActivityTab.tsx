import { Link } from 'wouter';
import { useOp } from '../../../api/hooks.js';
import { Async } from '../../../ui/Async.js';
import { Section } from '../../../ui/Page.js';
import { duration, Time } from '../../../ui/Time.js';
import type { TabProps } from '../tab-props.js';
import { CommentCard } from './CommentCard.js';
import './activity.css';

// What viewers left behind in this project's room: the comment inbox first (it asks for an
// answer), then the "what happens next" answers, then the visits.

export function ActivityTab({ project }: TabProps) {
  return (
    <>
      <Comments projectId={project.id} />
      <Responses projectId={project.id} />
      <Visits projectId={project.id} />
    </>
  );
}

/** The comment inbox, with how many are open. */
function Comments({ projectId }: { projectId: string }) {
  const params = { params: { projectId } };
  const feedback = useOp('listFeedback', params);
  const open = feedback.data?.filter((c) => !c.resolvedAt).length ?? 0;
  return (
    <Section
      title="Comments"
      actions={
        feedback.data && (
          <span className="badge">
            {open} open of {feedback.data.length}
          </span>
        )
      }
    >
      <Async
        query={feedback}
        lines={4}
        empty={
          <p>
            No comments yet. Viewers leave one in the room with the <strong>Comment</strong> button: they pin a point or drag an area on the
            app, and you see it here with a picture of their screen.
          </p>
        }
      >
        {(list) => (
          <ul className="comment-list">
            {list.map((c) => (
              <CommentCard key={c.id} comment={c} />
            ))}
          </ul>
        )}
      </Async>
    </Section>
  );
}

/** Viewers' answers to "what happens next". */
function Responses({ projectId }: { projectId: string }) {
  const params = { params: { projectId } };
  const responses = useOp('listResponses', params);
  return (
    <Section title="Responses">
      <Async
        query={responses}
        lines={3}
        empty={
          <p>
            No answers yet. Viewers answer <strong>What happens next</strong> at the end of the story or from its button in the room (set
            its steps in the Room tab).
          </p>
        }
      >
        {(list) => (
          <table className="stack">
            <thead>
              <tr>
                <th>Viewer</th>
                <th>Answer</th>
                <th>Detail</th>
                <th>When</th>
              </tr>
            </thead>
            <tbody>
              {list.map((r) => (
                <tr key={r.id}>
                  <td data-label="Viewer">{r.viewerName}</td>
                  <td data-label="Answer">
                    <span className="badge">{r.step}</span>
                  </td>
                  <td data-label="Detail">{detailText(r.detail)}</td>
                  <td data-label="When">
                    <Time at={r.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Async>
    </Section>
  );
}

/** Each visit through a link, and how many viewers the full room turned away this month. */
function Visits({ projectId }: { projectId: string }) {
  const params = { params: { projectId } };
  const visits = useOp('listVisits', params);
  const bounces = useOp('projectBounces', params);
  return (
    <Section
      title="Visits"
      actions={
        bounces.data && bounces.data.thisMonth > 0 ? (
          <span className="badge warn">{bounces.data.thisMonth} turned away this month (room full)</span>
        ) : undefined
      }
    >
      <Async
        query={visits}
        lines={4}
        empty={<p>No visits yet. Send a link from the Links tab; each visit through it shows here (previews record none).</p>}
      >
        {(list) => (
          <table className="stack">
            <thead>
              <tr>
                <th>Viewer</th>
                <th>Link</th>
                <th>Started</th>
                <th>Time spent</th>
                <th>Where</th>
              </tr>
            </thead>
            <tbody>
              {list.map((v) => {
                const total = Object.values(v.time).reduce((a, b) => a + b, 0);
                return (
                  <tr key={v.id}>
                    <td data-label="Viewer">{v.viewerName ?? <span className="muted">no name given</span>}</td>
                    <td data-label="Link">
                      {v.linkId ? <Link href={`~/journey/${v.linkId}`}>Journey</Link> : <span className="muted">preview</span>}
                    </td>
                    <td data-label="Started">
                      <Time at={v.startedAt} />
                      {!v.endedAt && (
                        <>
                          {' '}
                          <span className="badge live">maybe still here</span>
                        </>
                      )}
                    </td>
                    <td data-label="Time spent">{duration(total)}</td>
                    <td data-label="Where">
                      {Object.entries(v.time)
                        .map(([k, s]) => `${v.names[k] ?? k} ${duration(s)}`)
                        .join(', ') || '—'}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </Async>
    </Section>
  );
}

function detailText(detail: Record<string, unknown> | null): string {
  if (!detail) return '—';
  return (
    Object.values(detail)
      .filter((v) => typeof v === 'string' || typeof v === 'number')
      .join(' · ') || '—'
  );
}
