import { useChange, useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { Section } from '../../ui/Page.js';
import { Refusal } from '../../ui/Refusal.js';
import { Time } from '../../ui/Time.js';

const KIND_WORDS: Record<string, { label: string; tone: string }> = {
  'listing.blocked': { label: 'Blocked', tone: 'bad' },
  'listing.pulled': { label: 'Taken off', tone: 'bad' },
  'listing.takedown': { label: 'Taken down', tone: 'bad' },
  'appeal.upheld': { label: 'Appeal upheld', tone: 'ok' },
  'appeal.denied': { label: 'Appeal denied', tone: 'warn' },
};

export function Notices() {
  const notices = useOp('listNotices');
  const read = useChange('readNotices');
  const unread = notices.data?.filter((n) => !n.readAt).length ?? 0;
  return (
    <Section
      title={unread ? `Notices (${unread} unread)` : 'Notices'}
      actions={
        unread > 0 ? (
          <button type="button" className="secondary" disabled={read.isPending} onClick={() => read.mutate({ body: {} })}>
            Mark all read
          </button>
        ) : undefined
      }
    >
      <Refusal error={read.error} />
      <Async
        query={notices}
        lines={3}
        empty={<p>No notices. The platform writes here when a listing is blocked, taken off, or an appeal is decided.</p>}
      >
        {(list) => (
          <ul className="notices">
            {list.map((n) => (
              <li key={n.id} className={n.readAt ? 'read' : 'unread'}>
                <div className="row">
                  <span className={`badge ${KIND_WORDS[n.kind]?.tone ?? ''}`}>{KIND_WORDS[n.kind]?.label ?? n.kind}</span>
                  <strong className="grow">{n.title}</strong>
                  {!n.readAt && <span className="badge warn">Unread</span>}
                  <Time at={n.createdAt} />
                </div>
                <p>{n.body}</p>
                <div className="row">
                  {n.href && <a href={n.href}>Open</a>}
                  {!n.readAt && (
                    <button type="button" className="link" onClick={() => read.mutate({ body: { ids: [n.id] } })}>
                      Mark read<span className="sr-only">: {n.title}</span>
                    </button>
                  )}
                </div>
              </li>
            ))}
          </ul>
        )}
      </Async>
    </Section>
  );
}
