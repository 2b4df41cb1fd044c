import { useState } from 'react';
import type { LinkRec } from '@demo-rooms/contract';
import { useChange } from '../../../api/hooks.js';
import { Confirm } from '../../../ui/Confirm.js';
import { Refusal } from '../../../ui/Refusal.js';
import { AddressBox } from './AddressBox.js';

// One link's actions. Reveal shows the address again (recorded as a copy); reissue gives a new
// one and stops the old at once; revoke stops the link for good. The last two are confirmed.

export function LinkActions({ link, usable }: { link: LinkRec; usable: boolean }) {
  const [url, setUrl] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<'reissue' | 'revoke' | null>(null);
  const reveal = useChange('revealLink', (r) => setUrl(r.url));
  const reissue = useChange('reissueLink', (r) => {
    setUrl(r.url);
    setConfirm(null);
  });
  const revoke = useChange('revokeLink', () => {
    setUrl(null);
    setConfirm(null);
  });
  const params = { linkId: link.id };
  if (!usable) return null;
  return (
    <div>
      <div className="row">
        {link.recoverable !== false && (
          <button type="button" className="secondary" disabled={reveal.isPending} onClick={() => reveal.mutate({ params })}>
            Reveal<span className="sr-only"> link for {link.viewerName}</span>
          </button>
        )}
        <button
          type="button"
          className="secondary"
          onClick={() => {
            reissue.reset();
            setConfirm('reissue');
          }}
        >
          Reissue<span className="sr-only"> link for {link.viewerName}</span>
        </button>
        <button
          type="button"
          className="danger"
          onClick={() => {
            revoke.reset();
            setConfirm('revoke');
          }}
        >
          Revoke<span className="sr-only"> link for {link.viewerName}</span>
        </button>
      </div>
      <Refusal error={reveal.error} />
      {url && <AddressBox url={url} label={`Address for ${link.viewerName}`} />}
      <Confirm
        open={confirm === 'reissue'}
        onClose={() => setConfirm(null)}
        title={`Reissue the link for ${link.viewerName}?`}
        danger={false}
        description="The old address stops working at once; the new one is shown to copy. Visits and answers stay."
        action="Reissue link"
        onConfirm={() => reissue.mutate({ params })}
        pending={reissue.isPending}
        error={reissue.error}
      />
      <Confirm
        open={confirm === 'revoke'}
        onClose={() => setConfirm(null)}
        title={`Revoke the link for ${link.viewerName}?`}
        description="The link stops opening the room at once and cannot be reopened. Visits, answers and comments stay."
        action="Revoke link"
        onConfirm={() => revoke.mutate({ params })}
        pending={revoke.isPending}
        error={revoke.error}
      />
    </div>
  );
}
