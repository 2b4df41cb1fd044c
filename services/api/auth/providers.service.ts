import * as oidc from 'openid-client';
import { samePath } from '@demo-rooms/contract';
import type { Config } from '../../core/infra/config.js';
import type { Sql } from '../../core/infra/db.js';
import { notFound, Refusal, refused } from '../../core/rules/errors.js';
import { ensurePerson } from '../../data/people.sql.js';
import {
  keepOAuthState,
  linkProvider,
  personIdByEmail,
  providerLink,
  spendOAuthState,
  type ProviderName,
} from '../../data/provider-links.sql.js';
import { createSession } from '../../data/sessions.sql.js';

// GitHub and Google sign-in (spec 5 (8); issue 19) through openid-client: the authorization code
// flow with PKCE (S256) and `state`, and for Google (OpenID Connect) a nonce and the ID token's
// checks. The provider's account is found by its stable id; a new one is linked to the person
// with the same email only when the provider says that email is verified (RFC 9700's warning
// about account takeover by unverified email), or to the signed-in person who asked to link it.

const stateSeconds = 600;
export const providerNames = ['github', 'google'] as const satisfies readonly ProviderName[];

export const isProvider = (name: string): name is ProviderName => (providerNames as readonly string[]).includes(name);

export function providerSetUp(config: Config, provider: ProviderName): boolean {
  return provider === 'github'
    ? !!(config.GITHUB_CLIENT_ID && config.GITHUB_CLIENT_SECRET)
    : !!(config.GOOGLE_CLIENT_ID && config.GOOGLE_CLIENT_SECRET);
}

const callbackUrl = (config: Config, provider: ProviderName) => `${config.publicUrl}/api/auth/${provider}/callback`;
/** Plain http only towards loopback (a stand-in in tests); a real provider is always https. */
const loopback = (url: string) => ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname);

async function clientFor(config: Config, provider: ProviderName): Promise<oidc.Configuration> {
  if (!providerSetUp(config, provider)) throw notFound();
  if (provider === 'google') {
    const options = loopback(config.GOOGLE_ISSUER) ? { execute: [oidc.allowInsecureRequests] } : undefined;
    return oidc.discovery(new URL(config.GOOGLE_ISSUER), config.GOOGLE_CLIENT_ID!, config.GOOGLE_CLIENT_SECRET!, undefined, options);
  }
  const base = config.GITHUB_URL.replace(/\/$/, '');
  const client = new oidc.Configuration(
    { issuer: base, authorization_endpoint: `${base}/login/oauth/authorize`, token_endpoint: `${base}/login/oauth/access_token` },
    config.GITHUB_CLIENT_ID!,
    config.GITHUB_CLIENT_SECRET!,
  );
  if (loopback(base)) oidc.allowInsecureRequests(client);
  return client;
}

/**
 * The provider's address to send the browser to, and its state; `personId` links the account to a
 * signed-in person; `next` is where the callback sends the browser (a same-origin path, else `/`).
 */
export async function startProvider(sql: Sql, config: Config, provider: ProviderName, personId: string | null, next?: string | null) {
  const client = await clientFor(config, provider);
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = provider === 'google' ? oidc.randomNonce() : null;
  const nextPath = next ? samePath(next) : '/';
  await keepOAuthState(sql, {
    state,
    provider,
    codeVerifier,
    nonce,
    personId,
    seconds: stateSeconds,
    nextPath: nextPath === '/' ? null : nextPath,
  });
  const url = oidc.buildAuthorizationUrl(client, {
    redirect_uri: callbackUrl(config, provider),
    scope: provider === 'google' ? 'openid email profile' : 'read:user user:email',
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    ...(nonce ? { nonce } : {}),
  });
  return { url: url.href, state };
}

interface Identity {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  imageUrl: string | null;
}

async function githubIdentity(config: Config, accessToken: string): Promise<Identity> {
  const api = config.GITHUB_API_URL.replace(/\/$/, '');
  const get = async (path: string) => {
    const res = await fetch(`${api}${path}`, {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/vnd.github+json', 'user-agent': 'demo-rooms' },
    });
    if (!res.ok) throw refused(422, 'provider', `GitHub answered ${res.status} for ${path}`);
    return res.json();
  };
  const user = (await get('/user')) as { id: number; avatar_url?: string };
  // A private email is absent from /user: /user/emails lists every address with whether it is verified.
  const emails = (await get('/user/emails')) as { email: string; verified: boolean; primary: boolean }[];
  const chosen = emails.find((e) => e.primary && e.verified) ?? emails.find((e) => e.verified) ?? emails.find((e) => e.primary) ?? null;
  return { subject: String(user.id), email: chosen?.email ?? null, emailVerified: !!chosen?.verified, imageUrl: user.avatar_url ?? null };
}

/** Ends the flow at the callback: the state spent, the code exchanged with its verifier, a web session opened. */
export async function finishProvider(sql: Sql, config: Config, provider: ProviderName, currentUrl: URL, userAgent?: string) {
  const state = currentUrl.searchParams.get('state');
  const kept = state ? await spendOAuthState(sql, state, provider) : null;
  if (!state || !kept) throw refused(422, 'state', 'the sign-in was not started here, or it was used or expired: start again');
  const client = await clientFor(config, provider);
  let identity: Identity;
  try {
    const tokens = await oidc.authorizationCodeGrant(client, currentUrl, {
      pkceCodeVerifier: kept.codeVerifier,
      expectedState: state,
      ...(kept.nonce ? { expectedNonce: kept.nonce, idTokenExpected: true } : {}),
    });
    if (provider === 'google') {
      const claims = tokens.claims()!;
      identity = {
        subject: claims.sub,
        email: typeof claims.email === 'string' ? claims.email : null,
        emailVerified: claims.email_verified === true,
        imageUrl: typeof claims.picture === 'string' ? claims.picture : null,
      };
    } else {
      identity = await githubIdentity(config, tokens.access_token);
    }
  } catch (err) {
    if (err instanceof Refusal) throw err;
    throw refused(422, 'provider', `the provider refused the sign-in: ${(err as Error).message}`);
  }
  const { personId, added } = await personFor(sql, provider, identity, kept.personId);
  const session = await createSession(sql, { personId, kind: 'web', days: config.SESSION_DAYS, method: provider, userAgent });
  // A new link is a new way in: the handler mails the person (security-3 M4).
  return {
    session,
    next: samePath(kept.nextPath ?? '/'),
    added: added ? { personId, what: `A ${providerTitle[provider]} account` } : null,
  };
}

const providerTitle: Record<ProviderName, string> = { github: 'GitHub', google: 'Google' };

async function personFor(
  sql: Sql,
  provider: ProviderName,
  id: Identity,
  linking: string | null,
): Promise<{ personId: string; added: boolean }> {
  const known = await providerLink(sql, provider, id.subject);
  if (known) {
    if (linking && linking !== known.personId) throw refused(422, 'provider', 'this account is linked to another person');
    await linkProvider(sql, { ...known, imageUrl: id.imageUrl });
    return { personId: known.personId, added: false };
  }
  let personId = linking;
  if (!personId) {
    if (!id.email || !id.emailVerified)
      throw refused(422, 'provider', 'the provider does not vouch for an email: sign in by email, then link it');
    personId = (await personIdByEmail(sql, id.email)) ?? (await ensurePerson(sql, id.email, { verified: true })).id;
  }
  const linked = await linkProvider(sql, { personId, provider, subject: id.subject, imageUrl: id.imageUrl });
  if (!linked) throw refused(422, 'provider', `another ${provider} account is linked already: disconnect it first`);
  return { personId, added: linked === 'added' };
}
