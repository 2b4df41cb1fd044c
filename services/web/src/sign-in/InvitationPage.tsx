import { useEffect, useState } from 'react';
import { useParams } from 'wouter';
import { api } from '../api/client.js';
import { isStatus, wordsFor } from '../api/refusal-words.js';
import { Plain, Status } from './Plain.js';

// The address createInvitation answers. The invited person, signed in with the invited email,
// reads whose team it is and joins with a click (a POST, never the GET that opened the page).

export function InvitationPage() {
  const { key } = useParams<{ key: string }>();
  const [invited, setInvited] = useState('Reading the invitation…');
  const [open, setOpen] = useState(false);
  const [status, setStatus] = useState<{ text: string; problem?: boolean }>({ text: '' });
  useEffect(() => {
    api.call('viewInvitation', { params: { invitationId: key } }).then(
      (view) => {
        setInvited(`${view.invitedBy} invites you to ${view.workspaceName}, until ${new Date(view.expiresAt).toLocaleString()}.`);
        setOpen(true);
      },
      () => setInvited('This invitation is not for the email you are signed in with, or it was used, revoked or has expired.'),
    );
  }, [key]);
  const join = async () => {
    setOpen(false);
    try {
      const team = await api.call('acceptInvitation', { params: { invitationId: key } });
      setStatus({ text: `You joined ${team.name}; it is now your active workspace.` });
    } catch (error) {
      setOpen(!isStatus(error, 404));
      setStatus({ text: isStatus(error, 404) ? 'This invitation can no longer be used.' : wordsFor(error).headline, problem: true });
    }
  };
  return (
    <Plain title="An invitation">
      <h1>An invitation to a team</h1>
      <p id="invited">{invited}</p>
      {open && (
        <p>
          <button type="button" onClick={join}>
            Join the team
          </button>
        </p>
      )}
      <Status {...status} />
      <p className="muted">
        <a href="/">Go to your projects</a>
      </p>
    </Plain>
  );
}
