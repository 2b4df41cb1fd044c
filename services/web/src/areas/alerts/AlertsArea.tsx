import { Link } from 'wouter';
import { useChange, useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { Page } from '../../ui/Page.js';
import { Refusal } from '../../ui/Refusal.js';
import { Time } from '../../ui/Time.js';
import './alerts.css';

// Issue 34: what viewers did, as the alerts mail it (a first open, an answer, a comment), each with
// the place it happened. Read or unread is the person's own; how they are mailed is on Account.

export default function AlertsArea() {
  const alerts = useOp('listAlerts');
  const mark = useChange('markAlertsRead');
  return (
    <Page
      title="Alerts"
      lead={
        <>
          When a viewer first opens a room, answers “What happens next” or leaves a comment. Mail for them is set on{' '}
          <Link href="/account">Account</Link>.
        </>
      }
    >
      <Async query={alerts} lines={6}>
        {(list) =>
          list.alerts.length === 0 ? (
            <div className="empty">
              <p>No alerts yet. Send a link: when its viewer opens the room, you hear of it here and by mail.</p>
            </div>
          ) : (
            <>
              <div className="row spaced">
                <span className="muted" data-testid="alerts-unread">
                  {list.unread} unread
                </span>
                {list.unread > 0 && (
                  <button
                    type="button"
                    disabled={mark.isPending}
                    onClick={() =>
                      mark.mutate({
                        body: {
                          ids: list.alerts
                            .filter((a) => !a.read)
                            .slice(0, 50)
                            .map((a) => a.id),
                        },
                      })
                    }
                  >
                    Mark all read
                  </button>
                )}
              </div>
              <Refusal error={mark.error} />
              <ul className="alerts">
                {list.alerts.map((a) => (
                  <li key={a.id} className={a.read ? 'read' : 'unread'}>
                    <div>
                      <strong>{a.projectName}</strong>: <Link href={a.href}>{a.summary}</Link>
                    </div>
                    <div className="row spaced">
                      <span className="muted">
                        <Time at={a.createdAt} />
                        {a.read ? '' : ' · unread'}
                      </span>
                      {!a.read && (
                        <button type="button" className="link" onClick={() => mark.mutate({ body: { ids: [a.id] } })}>
                          Mark read
                        </button>
                      )}
                    </div>
                  </li>
                ))}
              </ul>
            </>
          )
        }
      </Async>
    </Page>
  );
}
