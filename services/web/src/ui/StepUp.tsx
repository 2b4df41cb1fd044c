import { useEffect, useRef, useState } from 'react';
import { api } from '../api/client.js';
import { signInWithPasskey } from '../api/passkey-sign-in.js';
import { wordsFor } from '../api/refusal-words.js';
import { passkeysHere } from '../settings.js';
import { rememberHere } from '../sign-in/next.js';
import { waitForSignIn } from '../sign-in/step-up-channel.js';

// Account power (adding a passkey, connecting a provider, a connector token, deleting the account)
// asks for a sign-in of the last few minutes (services/api/auth/step-up.ts). When the API says so,
// the refusal offers this: sign in again here, by passkey at once or by an emailed link opened in
// this browser (another tab says when it has signed in: sign-in/step-up-channel.ts; this tab, when
// the link opens here, comes back to this page), then the change is tried again.

export function StepUp({ retry }: { retry?: () => void }) {
  const [state, setState] = useState<{ text: string; problem?: boolean; done?: boolean }>({ text: '' });
  const [busy, setBusy] = useState(false);
  const stopWaiting = useRef<() => void>(undefined);
  useEffect(() => () => stopWaiting.current?.(), []);
  const retried = (how: string) => {
    setState({ text: retry ? `${how} Trying once more…` : `${how} Try once more.`, done: true });
    retry?.();
  };

  const attempt = async (run: () => Promise<void>) => {
    setBusy(true);
    try {
      await run();
    } catch (error) {
      setState({ text: wordsFor(error).headline, problem: true });
    } finally {
      setBusy(false);
    }
  };

  const passkey = () =>
    attempt(async () => {
      if (!(await signInWithPasskey())) return setState({ text: 'No passkey was used. Try again, or have a link emailed.', problem: true });
      retried('Signed in again.');
    });

  const emailed = () =>
    attempt(async () => {
      const { email } = await api.call('whoami');
      await api.call('emailSignIn', { body: { email } });
      rememberHere();
      stopWaiting.current?.();
      stopWaiting.current = waitForSignIn(() => retried('Signed in again in the other tab.'));
      setState({
        text: `We sent a sign-in link to ${email}. Open it in this browser: this page goes on once you have signed in.`,
        done: true,
      });
    });

  return (
    <div className="step-up" role="group" aria-label="Sign in again">
      {!state.done && (
        <div className="row">
          {passkeysHere() && (
            <button type="button" onClick={passkey} disabled={busy}>
              Sign in again with a passkey
            </button>
          )}
          <button type="button" className="secondary" onClick={emailed} disabled={busy}>
            Email me a sign-in link
          </button>
        </div>
      )}
      <p role="status" aria-live="polite" className={state.problem ? 'problem' : undefined}>
        {state.text}
      </p>
    </div>
  );
}
