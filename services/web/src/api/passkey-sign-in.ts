import { startAuthentication } from '@simplewebauthn/browser';
import { api } from './client.js';

/**
 * A sign-in by passkey: the platform's challenge, the browser's own question, the answer back.
 * False when no passkey was used (the person closed the browser's dialog, or has none here);
 * the API's refusals throw.
 */
export async function signInWithPasskey(): Promise<boolean> {
  const optionsJSON = await api.call('passkeySignInOptions');
  let response;
  try {
    response = await startAuthentication({ optionsJSON: optionsJSON as never });
  } catch {
    return false;
  }
  await api.call('passkeySignIn', { body: { response: response as never } });
  return true;
}
