import { useState } from 'react';
import { useChange, useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { CopyButton } from '../../ui/CopyButton.js';
import { Field } from '../../ui/Field.js';
import { Section } from '../../ui/Page.js';
import { Refusal } from '../../ui/Refusal.js';
import { RevokeButton } from '../../ui/RevokeButton.js';
import { Time } from '../../ui/Time.js';

type Workspace = { id: string; name: string };

// Nothing is emailed: the owner gets an address to send the invited person themselves, usable
// once within 7 days by whoever signs in with that email.
export function Invitations({ workspace }: { workspace: Workspace }) {
  const params = { workspaceId: workspace.id };
  const invitations = useOp('listInvitations', { params });
  const [email, setEmail] = useState('');
  const [made, setMade] = useState<{ email: string; url: string } | null>(null);
  const invite = useChange('createInvitation', (r) => {
    setMade({ email: r.invitation.email, url: r.url });
    setEmail('');
  });
  const revoke = useChange('revokeInvitation');
  return (
    <Section title="Invitations">
      <form
        className="inline"
        onSubmit={(e) => {
          e.preventDefault();
          invite.mutate({ params, body: { email } });
        }}
      >
        <Field
          label="Email to invite"
          name="email"
          type="email"
          value={email}
          required
          onChange={(e) => setEmail(e.target.value)}
          error={invite.error}
        />
        <button type="submit" disabled={invite.isPending || !email}>
          Invite
        </button>
      </form>
      <Refusal error={invite.error} />
      {made && (
        <div className="notice invitation-made" role="status">
          <p>
            Send this address to <strong>{made.email}</strong>; it works once, for 7 days, when they sign in with that email:
          </p>
          <div className="row">
            <code className="grow" data-testid="invitation-url">
              {made.url}
            </code>
            <CopyButton value={made.url} label="Copy invitation address" />
          </div>
        </div>
      )}
      <Async query={invitations} lines={2} empty={<p>No invitations waiting. Invite someone by email above.</p>}>
        {(list) => (
          <div className="table-wrap">
            <table className="stack">
              <thead>
                <tr>
                  <th>Email</th>
                  <th>Invited by</th>
                  <th>Sent</th>
                  <th>Expires</th>
                  <th>
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.map((i) => (
                  <tr key={i.id}>
                    <td data-label="Email">{i.email}</td>
                    <td data-label="Invited by">{i.invitedBy}</td>
                    <td data-label="Sent">
                      <Time at={i.createdAt} />
                    </td>
                    <td data-label="Expires">
                      <Time at={i.expiresAt} />
                    </td>
                    <td>
                      <RevokeButton
                        change={revoke}
                        args={{ params: { ...params, invitationId: i.id } }}
                        what={`invitation of ${i.email}`}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Async>
      <Refusal error={revoke.error} />
    </Section>
  );
}
