import type { WebhookDelivery } from '@demo-rooms/contract';
import { useChange, useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { Refusal } from '../../ui/Refusal.js';
import { Time } from '../../ui/Time.js';
import { kindWords } from './KindChoice.js';

// An endpoint's last deliveries, newest first, each with every attempt (status, time, duration,
// the first KiB of the answer) and a re-send once its series has ended. Read again every few
// seconds while a delivery is still being attempted.

const statusWords: Record<WebhookDelivery['status'], string> = { pending: 'Sending', succeeded: 'Delivered', failed: 'Failed' };

/** Whose event it was: the viewer (and company) its link names, or the room's public address. */
function aboutWords({ linkId, viewer }: Pick<WebhookDelivery, 'linkId' | 'viewer'>): string {
  const who = [viewer.name, viewer.company].filter(Boolean).join(', ');
  if (!linkId) return who ? `${who}, at the room's public address` : "at the room's public address";
  return who ? `for ${who}` : 'for a link whose viewer gave no name';
}

export function DeliveryLog({ endpointId, name }: { endpointId: string; name: string }) {
  const deliveries = useOp(
    'listWebhookDeliveries',
    { params: { endpointId } },
    { refetchInterval: (q) => ((q.state.data ?? []).some((d) => d.status === 'pending') ? 2000 : false) },
  );
  const resend = useChange('resendWebhookDelivery');
  return (
    <section className="webhook-log" aria-label={`Delivery log of ${name}`}>
      <Refusal error={resend.error} />
      <Async query={deliveries} lines={2} empty={<p>Nothing sent yet. Send a test event to see one here.</p>}>
        {(list) => (
          <ol className="webhook-deliveries">
            {list.map((d) => (
              <li key={d.id} className="webhook-delivery">
                <div className="row">
                  <strong>{kindWords[d.kind]}</strong>
                  <span data-testid="delivery-about">{aboutWords(d)}</span>
                  <span className={`badge ${d.status === 'failed' ? 'bad' : d.status === 'succeeded' ? 'ok' : ''}`}>
                    {statusWords[d.status]}
                  </span>
                  <span className="muted">
                    <Time at={d.createdAt} />
                  </span>
                  {d.status !== 'pending' && (
                    <button
                      type="button"
                      className="secondary"
                      onClick={() => resend.mutate({ params: { deliveryId: d.id } })}
                      disabled={resend.isPending}
                    >
                      Re-send
                      <span className="sr-only">
                        {' '}
                        {kindWords[d.kind]} of <Time at={d.createdAt} />
                      </span>
                    </button>
                  )}
                </div>
                <table className="webhook-attempts">
                  <caption className="sr-only">Attempts</caption>
                  <thead>
                    <tr>
                      <th scope="col">Try</th>
                      <th scope="col">Answer</th>
                      <th scope="col">When</th>
                      <th scope="col">Took</th>
                      <th scope="col">Body</th>
                    </tr>
                  </thead>
                  <tbody>
                    {d.attempts.map((a) => (
                      <tr key={`${a.series}-${a.attempt}`}>
                        <td>{d.series > 1 ? `${a.series}.${a.attempt}` : a.attempt}</td>
                        <td>{a.ok ? `${a.statusCode} OK` : (a.error ?? 'failed')}</td>
                        <td>
                          <Time at={a.at} />
                        </td>
                        <td>{a.durationMs} ms</td>
                        <td>
                          <code className="excerpt">{a.bodyExcerpt ?? ''}</code>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </li>
            ))}
          </ol>
        )}
      </Async>
    </section>
  );
}
