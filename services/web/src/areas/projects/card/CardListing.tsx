import { useState } from 'react';
import { api } from '../../../api/client.js';
import { useAction, useChange } from '../../../api/hooks.js';
import { Section } from '../../../ui/Page.js';
import { Refusal } from '../../../ui/Refusal.js';
import { Time } from '../../../ui/Time.js';
import { Findings, STATUS, type Card } from './findings.js';

type Rehearsal = Awaited<ReturnType<typeof rehearse>>;
const rehearse = (projectId: string) => api.call('rehearseListing', { params: { projectId } });

const OUTCOME: Record<string, string> = {
  listed: 'It would be listed now.',
  blocked: 'It would be blocked: see why below.',
  pending: 'It would wait for the platform’s review first.',
  already: 'It is listed already.',
  refused: 'It cannot be listed yet:',
};

/** The card's state, listing it and taking it back, a rehearsal of the checks, and appeals. */
export function CardListing({ card, projectId }: { card: Card; projectId: string }) {
  const params = { projectId };
  const [rehearsal, setRehearsal] = useState<Rehearsal | null>(null);
  // A rehearsal says what listing would do now; after a real listing or unlisting it is stale.
  const list = useChange('listProject', () => setRehearsal(null));
  const unlist = useChange('unlistProject', () => setRehearsal(null));
  const check = useAction(rehearse, setRehearsal);
  const status = STATUS[card.status] ?? { label: card.status, tone: '', words: '' };
  return (
    <Section
      title="Listing"
      actions={
        <span className={`badge ${status.tone}`} data-testid="card-status">
          {status.label}
          {card.hidden ? ' · hidden' : ''}
        </span>
      }
    >
      <p>{status.words}</p>
      {card.hidden && (
        <p className="notice">Hidden: the build it was listed with is no longer live. List it again to check the new build.</p>
      )}
      {card.rejectReason && <p className="notice">The platform’s reason: {card.rejectReason}</p>}
      <p className="muted">
        {card.submittedAt && (
          <>
            Asked to list <Time at={card.submittedAt} />.{' '}
          </>
        )}
        {card.reviewedAt && (
          <>
            Reviewed <Time at={card.reviewedAt} />.{' '}
          </>
        )}
        {card.status === 'listed' && !card.hidden && (
          <>
            Public room:{' '}
            <a href={card.publicUrl} target="_blank" rel="noreferrer">
              {card.publicUrl}
            </a>
          </>
        )}
      </p>
      <Findings items={card.blocked} tone="bad" title="What blocked the listing" />
      <Findings items={card.warnings} tone="warn" title="Warnings (these do not block)" />
      <div className="row">
        {card.status !== 'listed' && (
          <button type="button" disabled={list.isPending} onClick={() => list.mutate({ params })}>
            List in the community
          </button>
        )}
        {(card.status === 'listed' || card.status === 'pending') && (
          <button type="button" className="secondary" disabled={unlist.isPending} onClick={() => unlist.mutate({ params })}>
            Unlist
          </button>
        )}
        <button type="button" className="secondary" disabled={check.isPending} onClick={() => check.mutate(projectId)}>
          Rehearse the checks
        </button>
      </div>
      <Refusal error={list.error} />
      <Refusal error={unlist.error} />
      <Refusal error={check.error} />
      {rehearsal && (
        <div className="rehearsal" role="status">
          <h3>Rehearsal (nothing was written or counted)</h3>
          <p>{OUTCOME[rehearsal.outcome] ?? rehearsal.outcome}</p>
          {card.title && <ListingPreview card={card} />}
          {rehearsal.said.length > 0 && (
            <ul>
              {rehearsal.said.map((s) => (
                <li key={s}>{s}</li>
              ))}
            </ul>
          )}
          <Findings items={rehearsal.findings} tone="bad" title="Checks that would fail" />
          <Findings items={rehearsal.warnings} tone="warn" title="Warnings" />
        </div>
      )}
      <Appeal card={card} projectId={projectId} />
    </Section>
  );
}

function Appeal({ card, projectId }: { card: Card; projectId: string }) {
  const [message, setMessage] = useState('');
  const appeal = useChange('appealListing', () => setMessage(''));
  const open = card.appeal as { status?: string; message?: string; createdAt?: string; note?: string | null } | null;
  return (
    <>
      {open && (
        <div className="notice">
          <p>
            Your appeal ({open.status ?? 'open'}
            {open.createdAt ? (
              <>
                , <Time at={open.createdAt} />
              </>
            ) : null}
            ): “{open.message}”
          </p>
          {open.note && <p>The platform’s note: {open.note}</p>}
        </div>
      )}
      {card.appealable && (
        <form
          className="appeal"
          onSubmit={(e) => {
            e.preventDefault();
            appeal.mutate({ params: { projectId }, body: { message } });
          }}
        >
          <div className="field">
            <label htmlFor="appeal-message">Appeal: tell the platform why this should be listed</label>
            <textarea id="appeal-message" value={message} minLength={10} maxLength={1000} onChange={(e) => setMessage(e.target.value)} />
            <p className="hint">At least 10 characters; 3 appeals per workspace in 30 days.</p>
          </div>
          <button type="submit" className="secondary" disabled={appeal.isPending || message.trim().length < 10}>
            Send appeal
          </button>
          <Refusal error={appeal.error} />
        </form>
      )}
    </>
  );
}

/** The card as the community listing would show it: cover, title, line. */
function ListingPreview({ card }: { card: Card }) {
  const cover = card.cover as { url?: string } | null;
  return (
    <figure className="listing-preview" aria-label="How the listing would look">
      {cover?.url ? (
        <img src={cover.url} alt="" />
      ) : (
        <div className="no-cover" aria-hidden="true">
          {card.title.slice(0, 1)}
        </div>
      )}
      <figcaption>
        <strong>{card.title}</strong>
        <span className="muted">{card.line}</span>
      </figcaption>
    </figure>
  );
}
