import type { FastifyRequest } from 'fastify';
import type { HandlerGroup } from '../routing/handler.js';
import { newSecret } from '../../core/infra/ids.js';
import { mailNewSignInMethod } from '../account/new-method-mail.js';
import { requireBrowser, requireRecentSignIn } from './step-up.js';
import { clearSessionCookie, setSessionCookie, type Auth } from '../routing/request-auth.js';
import type { Sql } from '../../core/infra/db.js';
import { endSession } from '../../data/sessions.sql.js';
import { takeSignIn } from './sign-in-limits.js';
import { signInOptions, signInWithPasskey } from '../account/passkeys.service.js';
import { notFound, Refusal, refused } from '../../core/rules/errors.js';
import { finishProvider, isProvider, startProvider } from './providers.service.js';
import {
  approveDeviceLogin,
  checkEmailSignIn,
  redeemDeviceLogin,
  sendEmailSignIn,
  startDeviceLogin,
  verifyEmailSignIn,
} from './auth.service.js';

/**
 * The state of a provider sign-in, kept by the browser that started it (10 minutes). `__Host-`
 * (Secure, path /, no Domain) so no other origin of the site can plant or overwrite it; browsers
 * take Secure cookies from http://localhost and 127.0.0.1 too, as for the session cookie.
 */
const oauthStateCookie = '__Host-pp_oauth_state';
const oauthStateOptions = { path: '/', httpOnly: true, sameSite: 'lax', secure: true } as const;

/** The browser's own nonce that binds an emailed link to it (security-3 M3); 15 minutes, like the link. */
const signInNonceCookie = '__Host-pp_sign_in';
const signInNonceOptions = { path: '/', httpOnly: true, sameSite: 'lax', secure: true, maxAge: 15 * 60 } as const;
const nonceShape = /^pp_nce_[A-Za-z0-9_-]{43}$/;
const nonceOf = (req: FastifyRequest) => {
  const value = req.cookies?.[signInNonceCookie];
  return value && nonceShape.test(value) ? value : undefined;
};

export const authHandlers = {
  // The browser keeps its nonce across several requests, so each link it asked for stays its own.
  emailSignIn: async ({ deps, body, req, reply }) => {
    await takeSignIn(deps, req, [{ limit: 'ip' }, { limit: 'email', subject: body.email.trim().toLowerCase() }]);
    const nonce = nonceOf(req) ?? newSecret('pp_nce');
    reply.setCookie(signInNonceCookie, nonce, signInNonceOptions);
    return sendEmailSignIn(deps.sql, deps.mailer, deps.config, body.email, nonce);
  },
  emailCheck: async ({ deps, body, req }) => {
    await takeSignIn(deps, req, [{ limit: 'ip' }]);
    return checkEmailSignIn(deps.sql, body.token, nonceOf(req));
  },
  emailVerify: async ({ deps, body, auth, req, reply }) => {
    await takeSignIn(deps, req, [{ limit: 'ip' }]);
    const session = await verifyEmailSignIn(
      deps.sql,
      deps.config,
      body.token,
      nonceOf(req),
      body.confirm === true,
      req.headers['user-agent'],
    );
    await endReplacedSession(deps.sql, auth, session.personId);
    setSessionCookie(reply, session.token, session.expiresAt);
    return { signedIn: true as const, expiresAt: session.expiresAt.toISOString() };
  },

  deviceStart: async ({ deps, req }) => {
    await takeSignIn(deps, req, [{ limit: 'ip' }]);
    return startDeviceLogin(deps.sql, deps.config, req.headers['user-agent']);
  },
  // Signed in already, but a code is short: guessing other people's codes is throttled too. Only
  // the web app approves: a leaked CLI token must not mint more of itself (security-3 M4).
  deviceApprove: async ({ deps, body, auth, req }) => {
    requireBrowser(auth, 'deviceApprove');
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
  passkeySignIn: async ({ deps, body, auth, req, reply }) => {
    await takeSignIn(deps, req, [{ limit: 'ip' }]);
    const session = await signInWithPasskey(deps.sql, deps.config, body.response as never, req.headers['user-agent']);
    await endReplacedSession(deps.sql, auth, session.personId);
    setSessionCookie(reply, session.token, session.expiresAt);
    return { signedIn: true as const, expiresAt: session.expiresAt.toISOString() };
  },

  // The state is also handed to the browser that starts the flow, in a cookie of its own: the
  // callback takes only a state that browser carries, so nobody can land someone else's browser
  // on a callback address they obtained themselves (login CSRF; RFC 9700 4.7).
  // Started while signed in, it links a new way in to the caller: account power (security-3 M4).
  providerStart: async ({ deps, params, auth, req, reply, body }) => {
    if (auth) requireRecentSignIn(auth, 'providerStart');
    await takeSignIn(deps, req, [{ limit: 'ip' }]);
    if (!isProvider(params.provider)) throw notFound();
    const started = await startProvider(deps.sql, deps.config, params.provider, auth?.personId ?? null, body?.next);
    reply.setCookie(oauthStateCookie, started.state, { ...oauthStateOptions, maxAge: 600 });
    return { url: started.url };
  },
  // A browser that lands here with a refusal would show raw JSON: a navigation (it accepts HTML)
  // goes to the sign-in page, which says the reason in words. Other clients keep the JSON answer.
  providerCallback: async ({ deps, params, req, reply }) => {
    try {
      await takeSignIn(deps, req, [{ limit: 'ip' }]);
      if (!isProvider(params.provider)) throw notFound();
      const here = new URL(req.url, deps.config.publicUrl);
      reply.clearCookie(oauthStateCookie, oauthStateOptions);
      if (!req.cookies?.[oauthStateCookie] || req.cookies[oauthStateCookie] !== here.searchParams.get('state')) {
        throw refused(422, 'state', 'this browser did not start the sign-in: start again');
      }
      const { session, added, next } = await finishProvider(deps.sql, deps.config, params.provider, here, req.headers['user-agent']);
      setSessionCookie(reply, session.token, session.expiresAt);
      if (added) await mailNewSignInMethod(deps.sql, deps.mailer, deps.config, added.personId, added.what);
      return reply.redirect(next, 302); // where the sign-in started (`next`), a same-origin path
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
} satisfies HandlerGroup;

/**
 * Signing in again in a browser already signed in as the same person (the step-up of account
 * power) replaces its cookie: the session it replaces ends, so the sessions list does not grow.
 */
async function endReplacedSession(sql: Sql, auth: Auth | null, personId: string): Promise<void> {
  if (auth?.via === 'cookie' && auth.personId === personId) await endSession(sql, auth.sessionId);
}

const acceptsHtml = (accept: string | undefined) => /\btext\/html\b/i.test(accept ?? '');

/** The word the sign-in page reads from `?problem=`: the refusal's reason, else its kind. */
function problemOf(err: Refusal): string {
  if (err.reason && err.status !== 429) return err.reason;
  return err.status === 404 ? 'not-found' : err.status === 429 ? 'rate' : 'failed';
}
