import { useState } from 'react';
import { Link } from 'wouter';
import type { LinkRec } from '@demo-rooms/contract';
import { useOp } from '../../../api/hooks.js';
import { Async } from '../../../ui/Async.js';
import { Section } from '../../../ui/Page.js';
import { Time, ago } from '../../../ui/Time.js';
import type { TabProps } from '../tab-props.js';
import { LinkActions } from './LinkActions.js';
import { LinkCompany } from './LinkCompany.js';
import { NewLink } from './NewLink.js';

// The project's private links, one per named viewer. Their addresses are never listed: the API
// gives one back only when it is made, revealed or reissued, and this page shows it then.

export function expiryOf(link: LinkRec, now = Date.now()) {
  if (link.revokedAt) return { words: 'revoked', badge: 'bad' };
  if (!link.expiresAt) return { words: 'never expires', badge: '' };
  if (new Date(link.expiresAt).getTime() <= now) return { words: 'expired', badge: 'bad' };
  return { words: `expires ${ago(link.expiresAt, now)}`, badge: '' };
}

const STAGE_BADGE: Record<LinkRec['stage'], string> = { sent: '', opened: '', engaged: 'warn', yes: 'ok', later: 'warn', no: 'bad' };

export function LinksTab({ project }: TabProps) {
  const links = useOp('listLinks', { params: { projectId: project.id } });
  const [filter, setFilter] = useState<'open' | 'all'>('open');
  const open = links.data?.filter((l) => expiryOf(l).badge !== 'bad');
  return (
    <>
      <NewLink projectId={project.id} />
      <Section
        title={`Links${links.data ? ` (${open?.length} open of ${links.data.length})` : ''}`}
        actions={
          <div className="row" role="group" aria-label="Show">
            <button
              type="button"
              className={filter === 'open' ? '' : 'secondary'}
              aria-pressed={filter === 'open'}
              onClick={() => setFilter('open')}
            >
              Open
            </button>
            <button
              type="button"
              className={filter === 'all' ? '' : 'secondary'}
              aria-pressed={filter === 'all'}
              onClick={() => setFilter('all')}
            >
              All
            </button>
          </div>
        }
      >
        <Async
          query={links}
          lines={5}
          empty={
            <p>
              <strong>No links yet.</strong> Make one above for each person you show the demo to: you see who opened it and what they did.
            </p>
          }
        >
          {(all) => {
            const shown = filter === 'open' ? open! : all;
            if (shown.length === 0) return <p className="muted">No open links. Choose All to see revoked and expired ones.</p>;
            return (
              <div className="table-wrap">
                <table className="stack">
                  <thead>
                    <tr>
                      <th>Viewer</th>
                      <th>Stage</th>
                      <th>Last opened</th>
                      <th>Expiry</th>
                      <th>
                        <span className="sr-only">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {shown.map((l) => {
                      const expiry = expiryOf(l);
                      return (
                        <tr key={l.id}>
                          <td data-label="Viewer">
                            <Link href={`~/journey/${l.id}`}>{l.viewerName}</Link>
                            {l.viewerEmail && <div className="muted">{l.viewerEmail}</div>}
                            <LinkCompany link={l} usable={!expiry.badge} />
                          </td>
                          <td data-label="Stage">
                            <span className={`badge ${STAGE_BADGE[l.stage]}`}>{l.stage}</span>
                          </td>
                          <td data-label="Last opened">
                            {l.lastOpenedAt ? <Time at={l.lastOpenedAt} /> : <span className="muted">not yet</span>}
                          </td>
                          <td data-label="Expiry">
                            {expiry.badge ? <span className={`badge ${expiry.badge}`}>{expiry.words}</span> : <span>{expiry.words}</span>}
                            {l.revokedAt && (
                              <div className="muted">
                                revoked <Time at={l.revokedAt} />
                              </div>
                            )}
                          </td>
                          <td>
                            <LinkActions link={l} usable={!expiry.badge} />
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
            );
          }}
        </Async>
      </Section>
    </>
  );
}
