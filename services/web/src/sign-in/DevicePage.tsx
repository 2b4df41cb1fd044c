import { useState } from 'react';
import { api } from '../api/client.js';
import { isStatus, wordsFor } from '../api/refusal-words.js';
import { Plain, Status } from './Plain.js';

// `pitch login` sends the builder here with the code its terminal shows; approving signs the tool
// in. The api has already sent a signed-out browser to sign in first.

export function DevicePage() {
  const code = (new URLSearchParams(window.location.search).get('code') ?? '')
    .toUpperCase()
    .replace(/[^A-Z0-9-]/g, '')
    .slice(0, 20);
  const [status, setStatus] = useState<{ text: string; problem?: boolean }>({ text: '' });
  const [busy, setBusy] = useState(false);
  const approve = async () => {
    setBusy(true);
    try {
      await api.call('deviceApprove', { body: { userCode: code } });
      setStatus({ text: 'Approved. Go back to your terminal: the pitch tool is signed in.' });
    } catch (error) {
      setBusy(false);
      setStatus({
        text: isStatus(error, 404) ? 'This code is unknown or expired. Run `pitch login` again for a new one.' : wordsFor(error).headline,
        problem: true,
      });
    }
  };
  return (
    <Plain title="Approve the pitch tool">
      <h1>Sign in the pitch tool?</h1>
      <p>
        Your terminal shows this code. Approve only if it is the same and you ran <code>pitch login</code> yourself.
      </p>
      <p className="code">{code || '—'}</p>
      <p>
        <button type="button" onClick={approve} disabled={!code || busy}>
          Approve
        </button>
      </p>
      <Status {...status} />
      <p className="muted">
        <a href="/">Go to your projects</a>
      </p>
    </Plain>
  );
}
