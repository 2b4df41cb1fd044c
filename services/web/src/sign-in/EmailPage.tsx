import { useEffect, useState } from 'react';
import { api } from '../api/client.js';
import { isStatus, wordsFor } from '../api/refusal-words.js';
import { goOn } from './next.js';
import { tellWaitingTab } from './step-up-channel.js';
import { Plain, Status } from './Plain.js';

// The page the emailed link opens. Opening it spends nothing: it only asks what the link would do
// (emailCheck), and the person spends it with a button, so neither a mail scanner that runs the
// page's script nor a link someone else planted signs this browser in (security-3 M3). A link asked
// for in another browser names the account it opens, masked, and asks before signing in.

type Check = { email: string; thisBrowser: boolean };

const gone = 'This sign-in link has expired or was used already. Ask for a new one.';

export function EmailPage() {
  const token = new URLSearchParams(window.location.search).get('token') ?? '';
  const [check, setCheck] = useState<Check | null>(null);
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);
  const [resumed, setResumed] = useState(false);
  const say = (error: unknown) => setProblem(isStatus(error, 404) ? gone : wordsFor(error).headline);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the link is checked once per token; say only sets state
  useEffect(() => {
    api.call('emailCheck', { body: { token } }).then(setCheck, say);
  }, [token]);

  const signIn = async () => {
    setBusy(true);
    try {
      await api.call('emailVerify', { body: { token, ...(check?.thisBrowser ? {} : { confirm: true }) } });
      // A tab that asked to sign in again goes on with its change; this one says so and stays.
      if (await tellWaitingTab()) return setResumed(true);
      goOn();
    } catch (error) {
      say(error);
      setBusy(false);
    }
  };

  if (resumed) {
    return (
      <Plain title="Signed in again">
        <h1>Signed in again</h1>
        <p role="status">What you asked for goes on in the tab you came from. You can close this one.</p>
      </Plain>
    );
  }
  if (problem || !check) {
    return (
      <Plain title="Sign in">
        <h1>{problem ? 'Not signed in' : 'Sign in'}</h1>
        <Status text={problem} problem={!!problem} />
        <p className="muted">
          <a href="/login">Ask for a new link</a>
        </p>
      </Plain>
    );
  }
  if (check.thisBrowser) {
    return (
      <Plain title="Sign in">
        <h1>Sign in</h1>
        <p>
          Sign in as <strong>{check.email}</strong>.
        </p>
        <button type="button" onClick={signIn} disabled={busy}>
          Sign in
        </button>
        <Status text="" />
      </Plain>
    );
  }
  return (
    <Plain title="Sign in">
      <h1>Sign in as {check.email}?</h1>
      <p className="problem" role="note">
        This link was asked for in another browser. Only sign in if you asked for it yourself: someone may have sent you a link to their own
        account, to see what you do there.
      </p>
      <button type="button" onClick={signIn} disabled={busy}>
        Sign in as {check.email}
      </button>
      <Status text="" />
      <p className="muted">
        Not you, or you did not ask for it? Then do not sign in here, and <a href="/login">ask for a link of your own</a> instead.
      </p>
    </Plain>
  );
}
