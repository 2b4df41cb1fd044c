import { z } from 'zod';
import { DateTime, Id, Obj } from '../common.js';
import { Account, DeletionBlocker, Passkey, PasskeyName, Preferences, Session, SignIns } from '../resources/account.js';
import { route } from '../route.js';
import { nameText } from '../storable-text.js';

// Spec 4.6: own account.
export const accountRoutes = {
  whoami: route({
    operation: 'whoami',
    method: 'GET',
    path: '/api/me/account',
    status: 200,
    tag: 'account',
    summary: 'The signed-in person and the active workspace.',
    reply: Account,
  }),
  setName: route({
    operation: 'setName',
    method: 'POST',
    path: '/api/me/name',
    status: 200,
    tag: 'account',
    summary: 'Sets the display name.',
    body: z.object({ name: nameText(80) }),
    reply: Account,
  }),
  uploadPhoto: route({
    operation: 'uploadPhoto',
    method: 'PUT',
    path: '/api/me/photo',
    status: 200,
    raw: true,
    tag: 'account',
    summary: 'The photo bytes: PNG, JPEG or WebP, up to 2 MB and 4096 pixels a side, checked by its bytes; else 422 file.',
    // The spec does not show this reply.
    reply: Obj,
    errors: [411, 422],
  }),
  removePhoto: route({
    operation: 'removePhoto',
    method: 'POST',
    path: '/api/me/photo/remove',
    status: 200,
    tag: 'account',
    summary: "Removes the uploaded photo; the sign-in provider's avatar shows again, if any.",
    reply: Account,
  }),
  deletable: route({
    operation: 'deletable',
    method: 'GET',
    path: '/api/me/deletable',
    status: 200,
    tag: 'account',
    summary: 'Whether the account can be deleted; a blocker is an owned workspace that still holds projects or other people.',
    reply: z.object({ allowed: z.boolean(), blockers: z.array(DeletionBlocker) }),
  }),
  deleteAccount: route({
    operation: 'deleteAccount',
    method: 'POST',
    path: '/api/me/delete',
    status: 200,
    tag: 'account',
    summary:
      'Deletes the account when `confirm` is its email; sign-ins, sessions, profile, photo and owned workspaces go; 403 `permission` with `stepUp` unless a browser session signed in within the last minutes; 422 while a blocker exists.',
    body: z.object({ confirm: z.string() }),
    reply: z.object({ deleted: z.literal(true) }),
    errors: [403, 422],
  }),
  signIns: route({
    operation: 'signIns',
    method: 'GET',
    path: '/api/me/sign-in',
    status: 200,
    tag: 'account',
    summary: 'Sign-in providers, passkeys and emailed links.',
    reply: SignIns,
  }),
  disconnect: route({
    operation: 'disconnect',
    method: 'POST',
    path: '/api/me/sign-in/:provider/disconnect',
    status: 200,
    tag: 'account',
    summary:
      'Unlinks a sign-in provider (a recent browser sign-in, else 403 `permission` with `stepUp`); 422 while it is the only way in (no other provider, no passkey).',
    params: z.object({ provider: z.string() }),
    reply: SignIns,
    errors: [404, 422],
  }),
  // Passkeys: the spec shows only the `passkeys` count of signIns; these four rows are ours
  // (docs/decisions/sign-in-providers-and-passkeys.md).
  passkeys: route({
    operation: 'passkeys',
    method: 'GET',
    path: '/api/me/passkeys',
    status: 200,
    tag: 'account',
    summary: 'Own passkeys, oldest first; never the credential or its key.',
    reply: z.array(Passkey),
  }),
  passkeyRegisterOptions: route({
    operation: 'passkeyRegisterOptions',
    method: 'POST',
    path: '/api/me/passkeys/options',
    status: 200,
    tag: 'account',
    summary:
      'WebAuthn creation options (PublicKeyCredentialCreationOptionsJSON) for a new passkey: a discoverable credential, user verification required; only a browser session signed in within the last minutes (else 403 `permission` with `stepUp`); the challenge is good for one answer within 5 minutes.',
    reply: Obj,
    errors: [403],
  }),
  registerPasskey: route({
    operation: 'registerPasskey',
    method: 'POST',
    path: '/api/me/passkeys',
    status: 200,
    tag: 'account',
    summary:
      "Registers the authenticator's answer (RegistrationResponseJSON) and mails the person that a passkey was added; 403 `permission` with `stepUp` as for the options; 422 passkey when the challenge is unknown, spent or expired, or the answer does not verify.",
    body: z.object({ response: Obj, name: PasskeyName.optional() }),
    reply: z.array(Passkey),
    errors: [422],
  }),
  renamePasskey: route({
    operation: 'renamePasskey',
    method: 'POST',
    path: '/api/me/passkeys/:passkeyId/rename',
    status: 200,
    tag: 'account',
    summary:
      "Renames one of one's own passkeys (1 to 60 characters, spaces trimmed); another person's is 404. A name signs in nothing, so no recent sign-in is asked for.",
    params: z.object({ passkeyId: z.string() }),
    body: z.object({ name: PasskeyName }),
    reply: z.array(Passkey),
    errors: [404],
  }),
  removePasskey: route({
    operation: 'removePasskey',
    method: 'POST',
    path: '/api/me/passkeys/:passkeyId/remove',
    status: 200,
    tag: 'account',
    summary: "Removes one of one's own passkeys (a recent browser sign-in, else 403 `permission` with `stepUp`); another person's is 404.",
    params: z.object({ passkeyId: z.string() }),
    reply: z.array(Passkey),
    errors: [404],
  }),
  sessions: route({
    operation: 'sessions',
    method: 'GET',
    path: '/api/me/sessions',
    status: 200,
    tag: 'account',
    summary: "Own sessions, newest first; never the cookie's token.",
    reply: z.array(Session),
  }),
  revokeSession: route({
    operation: 'revokeSession',
    method: 'POST',
    path: '/api/me/sessions/:sessionId/revoke',
    status: 200,
    tag: 'account',
    summary: "Ends one of one's own sessions; another person's session is 404.",
    params: z.object({ sessionId: z.string() }),
    reply: z.array(Session),
    errors: [404],
  }),
  signOutEverywhere: route({
    operation: 'signOutEverywhere',
    method: 'POST',
    path: '/api/me/sessions/revoke-all',
    status: 200,
    tag: 'account',
    summary:
      'Ends every own session, the calling one included, and cancels device logins approved but not yet collected; answers how many sessions. With `removeMethodsAddedWithinDays` (beyond the spec) it also removes the passkeys and provider links added in that many last days (a recent browser sign-in, else 403 `permission` with `stepUp`).',
    body: z
      .object({
        /** Also remove the sign-in methods (passkeys, GitHub or Google links) added in the last this many days. */
        removeMethodsAddedWithinDays: z.number().int().min(1).max(365).optional(),
      })
      .nullish(), // may be left out: a call without a body (the validator reads none as {})
    reply: z.object({ signedOut: z.number().int(), methodsRemoved: z.number().int().optional() }),
    errors: [403],
  }),
  myPreferences: route({
    operation: 'myPreferences',
    method: 'GET',
    path: '/api/me/preferences',
    status: 200,
    tag: 'account',
    summary: 'Own preferences; defaults when none.',
    reply: Preferences,
  }),
  welcomeSeen: route({
    operation: 'welcomeSeen',
    method: 'POST',
    path: '/api/me/welcome/seen',
    status: 200,
    tag: 'account',
    summary: 'Records that the welcome was seen; sets only the first time.',
    reply: Preferences,
  }),
  foldFeedbackTab: route({
    operation: 'foldFeedbackTab',
    method: 'POST',
    path: '/api/me/feedback-tab',
    status: 200,
    tag: 'account',
    summary: 'Folds or unfolds the feedback tab.',
    body: z.object({ folded: z.boolean() }),
    reply: Preferences,
  }),
  sendProductFeedback: route({
    operation: 'sendProductFeedback',
    method: 'POST',
    path: '/api/product-feedback',
    status: 200,
    tag: 'account',
    summary: 'Files feedback on the product under the caller and the active workspace, whatever the body says; 429 past the hourly limit.',
    body: z.object({
      // Trimmed, so feedback of spaces only is refused; kept as sent otherwise (the operator's
      // `ops feedback` prints it through terminalSafe).
      body: z.string().trim().min(1).max(2000),
      page: z.string().max(300).optional(),
      appVersion: z.string().max(64).optional(),
    }),
    reply: z.object({ id: Id, createdAt: DateTime }),
    errors: [429],
  }),
};
