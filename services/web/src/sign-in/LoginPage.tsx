import { useEffect, useState, type FormEvent } from 'react';
import { api } from '../api/client.js';
import { signInWithPasskey } from '../api/passkey-sign-in.js';
import { wordsFor } from '../api/refusal-words.js';
import { passkeysHere, settings } from '../settings.js';
import { problemWords } from './problem-words.js';
import { goOn, nextOf, rememberNext } from './next.js';
import { Plain, Status } from './Plain.js';

// Sign-in, every way the platform has: an emailed link (no password), a passkey, and each provider
// the operator set up (GitHub, Google). Each answer of the API is said under the form.

const providerLabel = { github: 'GitHub', google: 'Google' } as const;

export function LoginPage() {
  const [status, setStatus] = useState<{ text: string; problem?: boolean }>(() => {
    const text = problemWords(window.location.search);
    return { text, problem: !!text };
  });
  const [sent, setSent] = useState(false);
  const [busy, setBusy] = useState(false);
  const next = nextOf(window.location.search);
  useEffect(() => rememberNext(window.location.search), []);

  const attempt = async (run: () => Promise<void>) => {
    setBusy(true);
    try {
      await run();
    } catch (error) {
      setStatus({ text: [wordsFor(error).headline, ...wordsFor(error).details].join(' '), problem: true });
    } finally {
      setBusy(false);
    }
  };

  const emailLink = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget).get('email') ?? '').trim();
    return attempt(async () => {
      await api.call('emailSignIn', { body: { email } });
      setStatus({ text: `We sent a sign-in link to ${email}. Open it in this browser within 15 minutes.` });
      setSent(true);
    });
  };

  const passkey = () =>
    attempt(async () => {
      if (await signInWithPasskey()) return goOn();
      setStatus({ text: 'No passkey was used. Try again, or use the emailed link.', problem: true });
    });

  const provider = (name: 'github' | 'google') =>
    attempt(async () => {
      // The provider sends the browser back to the api, which goes on to `next` (a same-origin path).
      const { url } = await api.call('providerStart', { params: { provider: name }, body: { next } });
      window.location.assign(url);
    });

  return (
    <Plain title="Sign in">
      <h1>Sign in</h1>
      <p>We email you a link that signs you in; no password.</p>
      <form noValidate onSubmit={emailLink}>
        <div className="field">
          <label htmlFor="email">Email</label>
          <input id="email" name="email" type="email" autoComplete={passkeysHere() ? 'email webauthn' : 'email'} required autoFocus />
        </div>
        <button type="submit" disabled={busy}>
          Email me a sign-in link
        </button>
      </form>
      <Status {...status} />
      {settings.outbox && (
        <p id="outbox" className="muted" hidden={!sent}>
          This platform sends no mail (no SMTP_URL): the link is in a file under <code>.data/outbox/</code> where <code>npm start</code>{' '}
          runs.
        </p>
      )}
      <div className="other-ways" role="group" aria-label="Other ways to sign in">
        {passkeysHere() && (
          <button type="button" className="secondary" onClick={passkey} disabled={busy}>
            Sign in with a passkey
          </button>
        )}
        {settings.providers.map((p) => (
          <button key={p} type="button" className="secondary" onClick={() => provider(p)} disabled={busy}>
            Continue with {providerLabel[p]}
          </button>
        ))}
      </div>
      {next !== '/' && (
        <p className="muted">
          You will go on to <code>{next}</code> once signed in.
        </p>
      )}
    </Plain>
  );
}
