import { useState } from 'react';
import { useChange, useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { Confirm } from '../../ui/Confirm.js';
import { useLeavingChange } from './leaving-change.js';
import { Section } from '../../ui/Page.js';
import { RevokeButton } from '../../ui/RevokeButton.js';
import { Time } from '../../ui/Time.js';
import { isConnector } from './connector-sessions.js';

// Where the person is signed in: browsers, the pitch tool. Connector tokens are sessions too but
// are listed with the connector (ConnectorSection). Ending every session ends this one, so the
// page goes to sign in after.

/** How far back "sign out everywhere" also removes ways in, when asked to. */
const RECENT_DAYS = 7;

export const methodWords: Record<string, string> = {
  email: 'Emailed link',
  passkey: 'Passkey',
  device: 'Pitch tool login',
  operator: 'Issued by the operator',
  github: 'GitHub',
  google: 'Google',
  connector: 'Connector token',
};

export function SessionsSection() {
  const sessions = useOp('sessions');
  const revoke = useChange('revokeSession');
  const [everywhere, setEverywhere] = useState(false);
  const [forget, setForget] = useState(false);
  const signOutEverywhere = () => signOutAll.mutate({ body: forget ? { removeMethodsAddedWithinDays: RECENT_DAYS } : {} });
  const signOutAll = useLeavingChange('signOutEverywhere');
  const list = (sessions.data ?? []).filter((s) => !isConnector(s));

  return (
    <Section
      title={`Sessions${sessions.data ? ` (${list.length})` : ''}`}
      actions={
        <button type="button" className="secondary" onClick={() => setEverywhere(true)}>
          Sign out everywhere
        </button>
      }
    >
      <Async query={sessions} lines={4} isEmpty={() => list.length === 0} empty={<p>No session is open besides connector tokens.</p>}>
        {() => (
          <div className="table-wrap">
            <table className="stack">
              <thead>
                <tr>
                  <th scope="col">Device</th>
                  <th scope="col">Signed in with</th>
                  <th scope="col">Since</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Expires</th>
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.map((s) => (
                  <tr key={s.id} data-session={s.id}>
                    <td data-label="Device">
                      <strong>{s.device}</strong> {s.current && <span className="badge live">This session</span>}
                    </td>
                    <td data-label="Signed in with">{s.signInMethod ? (methodWords[s.signInMethod] ?? s.signInMethod) : '—'}</td>
                    <td data-label="Since">
                      <Time at={s.createdAt} />
                    </td>
                    <td data-label="Last used">{s.lastUsedAt ? <Time at={s.lastUsedAt} /> : <span className="muted">not since</span>}</td>
                    <td data-label="Expires">
                      <Time at={s.expiresAt} />
                    </td>
                    <td>
                      {s.current ? (
                        <span className="muted">You are here</span>
                      ) : (
                        <RevokeButton
                          change={revoke}
                          args={{ params: { sessionId: s.id } }}
                          what={`${s.device} session`}
                          confirm={{
                            title: `Revoke the ${s.device} session?`,
                            description:
                              'Whoever uses it is signed out at once and signs in again to come back. Your other sessions keep working.',
                            action: 'Revoke session',
                          }}
                        />
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Async>
      <Confirm
        open={everywhere}
        onClose={() => setEverywhere(false)}
        title="Sign out everywhere?"
        description="Every browser, the pitch tool and every connector token are signed out, this browser too. You will sign in again."
        action="Sign out of every session"
        onConfirm={signOutEverywhere}
        pending={signOutAll.isPending}
        error={signOutAll.error}
      >
        <label className="check">
          <input type="checkbox" checked={forget} onChange={(e) => setForget(e.target.checked)} /> Also remove the passkeys and GitHub or
          Google connections added in the last {RECENT_DAYS} days
        </label>
        <p className="muted">
          Choose this if someone else may have used your account: what they added to come back goes too. Emailed links still reach you.
        </p>
      </Confirm>
    </Section>
  );
}
