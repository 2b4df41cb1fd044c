import type { HandlerGroup } from '../routing/handler.js';
import { imageBody } from '../routing/image-body.js';
import { accountOf } from './account.service.js';
import { photoLimits, removePhoto, savePhoto } from './photo.service.js';
import { revokeSession, sessionsOf, signOutEverywhere } from './sessions.service.js';
import { clearSessionCookie } from '../routing/request-auth.js';
import { deletable, deleteAccount } from './deletion.service.js';
import { listPasskeys, registerPasskey, registrationOptions, removePasskey, renamePasskey } from './passkeys.service.js';
import { disconnectProvider, signInsOf } from './sign-ins.service.js';
import { sendProductFeedback } from './product-feedback.service.js';
import { foldFeedbackTab, myPreferences, welcomeSeen } from './preferences.service.js';
import { invalid } from '../../core/rules/errors.js';
import { setNameOf } from '../../data/people.sql.js';
import { requireRecentSignIn } from '../auth/step-up.js';
import { mailNewSignInMethod } from './new-method-mail.js';

export const accountHandlers = {
  whoami: ({ deps, auth }) => accountOf(deps.sql, deps.config, auth),
  setName: async ({ deps, auth, body }) => {
    const name = body.name.trim();
    if (!name) throw invalid([{ path: 'name', message: 'a name needs a letter, not only spaces' }]);
    await setNameOf(deps.sql, auth.personId, name);
    return accountOf(deps.sql, deps.config, auth);
  },
  uploadPhoto: async ({ deps, auth, req }) => {
    await savePhoto(deps.sql, deps.storage, auth.personId, await imageBody(req, photoLimits.maxBytes, 'the photo'));
    return accountOf(deps.sql, deps.config, auth);
  },
  removePhoto: async ({ deps, auth }) => {
    await removePhoto(deps.sql, deps.storage, auth.personId);
    return accountOf(deps.sql, deps.config, auth);
  },

  sessions: ({ deps, auth }) => sessionsOf(deps.sql, auth),
  revokeSession: ({ deps, auth, params }) => revokeSession(deps.sql, auth, params.sessionId),
  signOutEverywhere: async ({ deps, auth, body, reply }) => {
    const days = body?.removeMethodsAddedWithinDays;
    if (days !== undefined) requireRecentSignIn(auth, 'signOutEverywhere');
    const out = await signOutEverywhere(deps.sql, auth, days);
    if (auth.via === 'cookie') clearSessionCookie(reply);
    return out;
  },

  myPreferences: ({ deps, auth }) => myPreferences(deps.sql, auth.personId),
  welcomeSeen: ({ deps, auth }) => welcomeSeen(deps.sql, auth.personId),
  foldFeedbackTab: ({ deps, auth, body }) => foldFeedbackTab(deps.sql, auth.personId, body.folded),

  sendProductFeedback: ({ deps, auth, body }) => sendProductFeedback(deps, auth, body),

  deletable: ({ deps, auth }) => deletable(deps, auth.personId),
  deleteAccount: async ({ deps, auth, body, reply }) => {
    requireRecentSignIn(auth, 'deleteAccount');
    const out = await deleteAccount(deps, auth.personId, body.confirm);
    if (auth.via === 'cookie') clearSessionCookie(reply);
    return out;
  },

  signIns: ({ deps, auth }) => signInsOf(deps.sql, deps.config, auth.personId),
  // Adding or removing a way in takes a recent sign-in in the web app (security-3 M4, step-up.ts).
  disconnect: ({ deps, auth, params }) => {
    requireRecentSignIn(auth, 'disconnect');
    return disconnectProvider(deps.sql, deps.config, auth.personId, params.provider);
  },
  passkeys: ({ deps, auth }) => listPasskeys(deps.sql, auth.personId),
  passkeyRegisterOptions: async ({ deps, auth }) => {
    requireRecentSignIn(auth, 'passkeyRegisterOptions');
    const me = await accountOf(deps.sql, deps.config, auth);
    return registrationOptions(deps.sql, deps.config, { id: me.userId, email: me.email, displayName: me.displayName });
  },
  registerPasskey: async ({ deps, auth, body }) => {
    requireRecentSignIn(auth, 'registerPasskey');
    const passkeys = await registerPasskey(deps.sql, deps.config, auth.personId, body.response as never, body.name ?? null);
    await mailNewSignInMethod(deps.sql, deps.mailer, deps.config, auth.personId, 'A passkey');
    return passkeys;
  },
  renamePasskey: ({ deps, auth, params, body }) => renamePasskey(deps.sql, auth.personId, params.passkeyId, body.name),
  removePasskey: ({ deps, auth, params }) => {
    requireRecentSignIn(auth, 'removePasskey');
    return removePasskey(deps.sql, auth.personId, params.passkeyId);
  },
} satisfies HandlerGroup;
