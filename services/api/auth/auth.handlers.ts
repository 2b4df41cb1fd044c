import type { Handlers } from '../routing/handler.js';
import { clearSessionCookie, setSessionCookie } from '../routing/request-auth.js';
import { endSession } from '../../data/sessions.sql.js';
import { takeSignIn } from './sign-in-limits.js';
import { signInOptions, signInWithPasskey } from '../account/passkeys.service.js';
import { notFound, Refusal, refused } from '../../core/errors.js';
import { finishProvider, isProvider, startProvider } from './providers.service.js';
import { approveDeviceLogin, redeemDeviceLogin, sendEmailSignIn, startDeviceLogin, verifyEmailSignIn } from './auth.service.js';

/** The state of a provider sign-in, kept by the browser that started it (path /api/auth/, 10 minutes). */
const oauthStateCookie = 'pp_oauth_state';

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

  // The state is also handed to the browser that starts the flow, in a cookie of its own: the
  // callback takes only a state that browser carries, so nobody can land someone else's browser
  // on a callback address they obtained themselves (login CSRF; RFC 9700 4.7).
  providerStart: async ({ deps, params, auth, req, reply }) => {
    await takeSignIn(deps, req, [{ limit: 'ip' }]);
    if (!isProvider(params.provider)) throw notFound();
    const started = await startProvider(deps.sql, deps.config, params.provider, auth?.personId ?? null);
    reply.setCookie(oauthStateCookie, started.state, { path: '/api/auth/', httpOnly: true, sameSite: 'lax', secure: true, maxAge: 600 });
    return { url: started.url };
  },
  // A browser that lands here with a refusal would show raw JSON: a navigation (it accepts HTML)
  // goes to the sign-in page, which says the reason in words. Other clients keep the JSON answer.
  providerCallback: async ({ deps, params, req, reply }) => {
    try {
      await takeSignIn(deps, req, [{ limit: 'ip' }]);
      if (!isProvider(params.provider)) throw notFound();
      const here = new URL(req.url, deps.config.publicUrl);
      reply.clearCookie(oauthStateCookie, { path: '/api/auth/', httpOnly: true, sameSite: 'lax', secure: true });
      if (!req.cookies?.[oauthStateCookie] || req.cookies[oauthStateCookie] !== here.searchParams.get('state')) {
        throw refused(422, 'state', 'this browser did not start the sign-in: start again');
      }
      const session = await finishProvider(deps.sql, deps.config, params.provider, here, req.headers['user-agent']);
      setSessionCookie(reply, session.token, session.expiresAt);
      return reply.redirect('/', 302);
    } catch (err) {
      if (!(err instanceof Refusal) || !acceptsHtml(req.headers.accept)) throw err;
      return reply.redirect(`/login?problem=${encodeURIComponent(problemOf(err))}`, 302);
    }
  },

  logout: async ({ deps, auth, reply }) => {
    await endSession(deps.sql, auth.sessionId);
    if (auth.via === 'cookie') clearSessionCookie(reply);
    return { signedOut: true as const };
  },
};

const acceptsHtml = (accept: string | undefined) => /\btext\/html\b/i.test(accept ?? '');

/** The word the sign-in page reads from `?problem=`: the refusal's reason, else its kind. */
function problemOf(err: Refusal): string {
  if (err.reason && err.status !== 429) return err.reason;
  return err.status === 404 ? 'not-found' : err.status === 429 ? 'rate' : 'failed';
}
