import type { Handlers } from '../routing/handler.js';
import { clearSessionCookie, setSessionCookie } from '../routing/request-auth.js';
import { endSession } from '../../data/sessions.sql.js';
import { takeSignIn } from './sign-in-limits.js';
import { signInOptions, signInWithPasskey } from '../account/passkeys.service.js';
import { notFound } from '../../core/errors.js';
import { finishProvider, isProvider, startProvider } from './providers.service.js';
import { approveDeviceLogin, redeemDeviceLogin, sendEmailSignIn, startDeviceLogin, verifyEmailSignIn } from './auth.service.js';

export const authHandlers: Handlers = {
  emailSignIn: async ({ deps, body, req }) => {
    await takeSignIn(deps, req, [{ limit: 'ip' }, { limit: 'email', subject: body.email.trim().toLowerCase() }]);
    return sendEmailSignIn(deps.sql, deps.mailer, deps.config, body.email);
  },

  emailVerify: async ({ deps, body, req, reply }) => {
    await takeSignIn(deps, req, [{ limit: 'ip' }]);
    const session = await verifyEmailSignIn(deps.sql, deps.config, body.token, req.headers['user-agent']);
    setSessionCookie(reply, session.token, session.expiresAt);
    return { signedIn: true as const, expiresAt: session.expiresAt.toISOString() };
  },

  deviceStart: async ({ deps, req }) => {
    await takeSignIn(deps, req, [{ limit: 'ip' }]);
    return startDeviceLogin(deps.sql, deps.config, req.headers['user-agent']);
  },
  // Signed in already, but a code is short: guessing other people's codes is throttled too.
  deviceApprove: async ({ deps, body, auth, req }) => {
    await takeSignIn(deps, req, [{ limit: 'ip' }]);
    return approveDeviceLogin(deps.sql, auth.personId, body.userCode);
  },
  deviceToken: async ({ deps, body, req }) => {
    await takeSignIn(deps, req, [{ limit: 'poll' }]);
    return redeemDeviceLogin(deps.sql, deps.config, body.deviceCode);
  },

  passkeySignInOptions: async ({ deps, req }) => {
    await takeSignIn(deps, req, [{ limit: 'ip' }]);
    return signInOptions(deps.sql, deps.config);
  },
  passkeySignIn: async ({ deps, body, req, reply }) => {
    await takeSignIn(deps, req, [{ limit: 'ip' }]);
    const session = await signInWithPasskey(deps.sql, deps.config, body.response as never, req.headers['user-agent']);
    setSessionCookie(reply, session.token, session.expiresAt);
    return { signedIn: true as const, expiresAt: session.expiresAt.toISOString() };
  },

  providerStart: async ({ deps, params, auth, req }) => {
    await takeSignIn(deps, req, [{ limit: 'ip' }]);
    if (!isProvider(params.provider)) throw notFound();
    return startProvider(deps.sql, deps.config, params.provider, auth?.personId ?? null);
  },
  providerCallback: async ({ deps, params, req, reply }) => {
    await takeSignIn(deps, req, [{ limit: 'ip' }]);
    if (!isProvider(params.provider)) throw notFound();
    const session = await finishProvider(deps.sql, deps.config, params.provider, new URL(req.url, deps.config.publicUrl), req.headers['user-agent']);
    setSessionCookie(reply, session.token, session.expiresAt);
    return reply.redirect('/', 302);
  },

  logout: async ({ deps, auth, reply }) => {
    await endSession(deps.sql, auth.sessionId);
    if (auth.via === 'cookie') clearSessionCookie(reply);
    return { signedOut: true as const };
  },
};
