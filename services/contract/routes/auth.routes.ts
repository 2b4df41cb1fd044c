import { z } from 'zod';
import { DateTime, Email, Obj } from '../common.js';
import { route } from '../route.js';

// Sign-in (spec 5.8 leaves the endpoints to us; docs/decisions/sign-in-and-sessions.md).

export const authRoutes = {
  emailSignIn: route({
    operation: 'emailSignIn',
    method: 'POST',
    path: '/api/auth/email',
    status: 200,
    open: true,
    tag: 'auth',
    summary:
      'Sends a one-use sign-in link valid 15 minutes, bound to this browser by the `__Host-pp_sign_in` cookie it sets (or keeps). Answers the same whether or not the address is known.',
    body: z.object({ email: Email.max(254) }),
    reply: z.object({ sent: z.literal(true), expiresAt: DateTime }),
    errors: [429],
  }),
  // Issue 28 (security-3 M3): the link page reads before it spends, and spends only on a click.
  emailCheck: route({
    operation: 'emailCheck',
    method: 'POST',
    path: '/api/auth/email/check',
    status: 200,
    open: true,
    tag: 'auth',
    summary:
      'What a sign-in link would do, spending nothing: the account (masked, `a•••@example.com`) and whether this browser asked for the link; 404 for an unknown, used or expired one.',
    body: z.object({ token: z.string().min(1).max(200) }),
    reply: z.object({ email: z.string(), thisBrowser: z.boolean(), expiresAt: DateTime }),
    errors: [404, 429],
  }),
  emailVerify: route({
    operation: 'emailVerify',
    method: 'POST',
    path: '/api/auth/email/verify',
    status: 200,
    open: true,
    tag: 'auth',
    summary:
      'Spends a sign-in link token and opens a cookie session: in the browser that asked for the link, or elsewhere with `confirm: true` (the person confirmed the masked account); otherwise 422 `elsewhere` with the masked `email`, and the link stays unspent.',
    body: z.object({ token: z.string().min(1).max(200), confirm: z.boolean().optional() }),
    reply: z.object({ signedIn: z.literal(true), expiresAt: DateTime }),
    errors: [404, 422, 429],
  }),
  deviceStart: route({
    operation: 'deviceStart',
    method: 'POST',
    path: '/api/auth/device',
    status: 200,
    open: true,
    tag: 'auth',
    summary: 'Starts a device login for the command-line tool.',
    reply: z.object({
      deviceCode: z.string(),
      userCode: z.string(),
      verifyUrl: z.url(),
      /** Seconds to wait between polls. */
      interval: z.number().int(),
      /** Seconds until the codes expire. */
      expiresIn: z.number().int(),
    }),
  }),
  deviceApprove: route({
    operation: 'deviceApprove',
    method: 'POST',
    path: '/api/auth/device/approve',
    status: 200,
    tag: 'auth',
    summary:
      'A person signed in to the web app (a cookie session; a bearer token gets 403 `permission` with `stepUp` `browser`) approves a user code shown by the command-line tool.',
    body: z.object({ userCode: z.string().min(1).max(20) }),
    reply: z.object({ approved: z.literal(true) }),
    errors: [403, 404],
  }),
  deviceToken: route({
    operation: 'deviceToken',
    method: 'POST',
    path: '/api/auth/device/token',
    status: 200,
    open: true,
    tag: 'auth',
    summary: 'Polled by the tool: `{pending: true}` until approved, then `{token}` once.',
    body: z.object({ deviceCode: z.string().min(1).max(200) }),
    reply: z.union([z.object({ pending: z.literal(true), interval: z.number().int() }), z.object({ token: z.string() })]),
    errors: [404],
  }),
  passkeySignInOptions: route({
    operation: 'passkeySignInOptions',
    method: 'POST',
    path: '/api/auth/passkey/options',
    status: 200,
    open: true,
    tag: 'auth',
    summary:
      'WebAuthn request options (PublicKeyCredentialRequestOptionsJSON) for signing in with a passkey; no account named, the authenticator offers its own.',
    reply: Obj,
    errors: [429],
  }),
  passkeySignIn: route({
    operation: 'passkeySignIn',
    method: 'POST',
    path: '/api/auth/passkey',
    status: 200,
    open: true,
    tag: 'auth',
    summary:
      "Verifies the authenticator's answer (AuthenticationResponseJSON) and opens a cookie session; 422 passkey when it does not verify, its challenge is spent or it came from another origin.",
    body: z.object({ response: Obj }),
    reply: z.object({ signedIn: z.literal(true), expiresAt: DateTime }),
    errors: [422, 429],
  }),
  providerStart: route({
    operation: 'providerStart',
    method: 'POST',
    path: '/api/auth/:provider/start',
    status: 200,
    open: true,
    tag: 'auth',
    summary:
      "The address of the provider (`github` or `google`) to send the browser to: authorization code with PKCE and state, valid 10 minutes, the state also set in the `__Host-pp_oauth_state` cookie. `next` (beyond the spec) is the same-origin path the callback sends the browser to afterwards (anything else: `/`). Signed in, the provider's account is linked to the caller, which takes a browser session signed in within the last minutes (else 403 `permission` with `stepUp`); 404 for a provider not set up.",
    params: z.object({ provider: z.string() }),
    body: z.object({ next: z.string().max(500).optional() }).nullish(), // may be left out: a call without a body (the validator reads none as {})
    reply: z.object({ url: z.url() }),
    errors: [403, 404, 429],
  }),
  providerCallback: route({
    operation: 'providerCallback',
    method: 'GET',
    path: '/api/auth/:provider/callback',
    status: 200,
    open: true,
    tag: 'auth',
    summary:
      'Where the provider sends the browser back: spends the state, exchanges the code with its PKCE verifier, opens a cookie session and redirects (302) to the `next` path its start was given, else `/`. 422 `state` for an unknown, used or expired state; 422 `provider` when the provider refuses the code or vouches for no email.',
    params: z.object({ provider: z.string() }),
    query: z.looseObject({ state: z.string().max(200).optional(), code: z.string().max(2000).optional() }),
    reply: z.object({ signedIn: z.literal(true) }),
    errors: [404, 422, 429],
  }),
  logout: route({
    operation: 'logout',
    method: 'POST',
    path: '/api/auth/logout',
    status: 200,
    tag: 'auth',
    summary: 'Ends the calling session, cookie or bearer.',
    reply: z.object({ signedOut: z.literal(true) }),
  }),
};
