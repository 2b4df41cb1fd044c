import { useEffect, useState } from 'react';
import { api } from '../api/client.js';
import { isStatus, wordsFor } from '../api/refusal-words.js';
import { goOn } from './next.js';
import { Plain, Status } from './Plain.js';

// The page the emailed link opens. It spends the token with a POST, never the GET that opened it,
// so a mail scanner following links cannot use up the sign-in.

export function EmailPage() {
  const [problem, setProblem] = useState('');
  useEffect(() => {
    const token = new URLSearchParams(window.location.search).get('token') ?? '';
    api.call('emailVerify', { body: { token } }).then(goOn, (error) =>
      setProblem(isStatus(error, 404) ? 'This sign-in link has expired or was used already. Ask for a new one.' : wordsFor(error).headline),
    );
  }, []);
  return (
    <Plain title="Signing in">
      <h1>{problem ? 'Not signed in' : 'Signing you in…'}</h1>
      <Status text={problem} problem={!!problem} />
      <p className="muted"><a href="/login">Ask for a new link</a></p>
    </Plain>
  );
}
