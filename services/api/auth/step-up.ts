import { Refusal } from '../../core/rules/errors.js';
import type { Auth } from '../routing/request-auth.js';

// Account power (security-3 M4): adding or removing a way in, minting connector tokens, deleting
// the account and approving a new device are never open to a bearer token (a CLI token sits in CI
// environments), and all but device approval ask for a sign-in of the last few minutes: a browser
// left signed in, or a stolen cookie, cannot add a passkey that outlives signing out everywhere.
// The refusal is the spec's 403 `permission` with the operation in `action`; `stepUp` tells the
// web app what would allow it: `browser` (use the web app) or `sign-in-again` (then retry).

export const STEP_UP_MINUTES = 10;

export type StepUp = 'browser' | 'sign-in-again';

const needsBrowser = (action: string) =>
  new Refusal(403, 'role cannot', 'permission', {
    action,
    stepUp: 'browser' satisfies StepUp,
    detail: 'only the web app, signed in in a browser, can do this; a command-line or connector token cannot',
  });

const needsSignInAgain = (action: string) =>
  new Refusal(403, 'role cannot', 'permission', {
    action,
    stepUp: 'sign-in-again' satisfies StepUp,
    detail: `sign in again to confirm it is you (a sign-in of the last ${STEP_UP_MINUTES} minutes is needed), then try again`,
  });

/** A cookie session of the web app, however old: approving a device login. */
export function requireBrowser(auth: Auth, action: string): void {
  if (auth.via !== 'cookie' || auth.kind !== 'web') throw needsBrowser(action);
}

/** A cookie session of the web app opened within the step-up window. */
export function requireRecentSignIn(auth: Auth, action: string, now = new Date()): void {
  requireBrowser(auth, action);
  if (now.getTime() - auth.signedInAt.getTime() > STEP_UP_MINUTES * 60_000) throw needsSignInAgain(action);
}
