import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailsTo, startPlatform, type Platform } from '../../../test/support/platform.js';
import { githubStandIn, type GithubUser } from '../../../test/support/github-stand-in.js';
import { refusal } from '../../../test/support/refusal.js';
import { hashSecret } from '../../core/infra/ids.js';

// GitHub and Google sign-in against stand-ins on loopback: a real OpenID Connect provider
// (oidc-provider, certified) for Google, and a small OAuth 2.0 server speaking GitHub's endpoints.

let platform: Platform;
let oidcServer: Server;
let github: Server;
let oidcProvider: InstanceType<typeof Provider>;

/** The people the stand-ins know, by login: what each provider says about them. */
const googleAccounts = new Map<string, { email: string; email_verified: boolean; picture?: string }>();
let nextGithubUser: GithubUser | null = null;

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_q, s) => s.writeHead(503).end();
  oidcServer = createServer((req, res) => handler(req, res));
  const issuer = await listen(oidcServer);
  github = githubStandIn(() => nextGithubUser);
  const githubUrl = await listen(github);
  platform = await startPlatform({
    env: {
      GITHUB_CLIENT_ID: 'gh-client',
      GITHUB_CLIENT_SECRET: 'gh-secret',
      GITHUB_URL: githubUrl,
      GITHUB_API_URL: githubUrl,
      GOOGLE_CLIENT_ID: 'google-client',
      GOOGLE_CLIENT_SECRET: 'google-secret-google-secret-google-secret',
      GOOGLE_ISSUER: issuer,
    },
  });
  oidcProvider = new Provider(issuer, {
    clients: [
      {
        client_id: 'google-client',
        client_secret: 'google-secret-google-secret-google-secret',
        redirect_uris: [`${platform.baseUrl}/api/auth/google/callback`],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    pkce: { required: () => true },
    conformIdTokenClaims: false,
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['picture'] },
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id, ...googleAccounts.get(id) }) }),
    cookies: { keys: ['test-cookie-key-test-cookie-key'] },
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
  });
  handler = oidcProvider.callback();
});
afterAll(async () => {
  await platform?.close();
  await new Promise((r) => oidcServer?.close(r));
  await new Promise((r) => github?.close(r));
});

/** A cookie jar for one browser's visit to the provider. */
class Jar {
  private cookies = new Map<string, string>();
  take(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      this.cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
  }
  header = () => [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
}

/**
 * The browser's walk through the provider: from the authorize address, through the stand-in's
 * login and consent forms as `login`, to the platform's callback address (returned, not opened).
 */
async function throughProvider(start: string, login: string): Promise<string> {
  const jar = new Jar();
  let url = start;
  let form: URLSearchParams | null = null;
  for (let i = 0; i < 12; i++) {
    if (url.startsWith(platform.baseUrl)) return url;
    const res: Response = await fetch(url, {
      redirect: 'manual',
      method: form ? 'POST' : 'GET',
      body: form ?? undefined,
      headers: { cookie: jar.header(), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    });
    jar.take(res);
    form = null;
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get('location')!, url).href;
      continue;
    }
    const html: string = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`the provider answered ${res.status}: ${html.slice(0, 300)}`);
    const prompt: string = /name="prompt" value="(\w+)"/.exec(html)![1];
    form = new URLSearchParams(prompt === 'login' ? { prompt, login, password: 'any' } : { prompt });
    url = new URL(action, url).href;
  }
  throw new Error('too many steps at the provider');
}

/** The browser's cookie binding it to the flow it started (the state; `__Host-`, path /). */
let stateCookie: string | null = null;

/** Starts a flow; `session` is the token of the web app's cookie session that asks to link. */
const start = async (provider: string, session?: string, next?: string) => {
  const headers: Record<string, string> = session ? { cookie: `__Host-pp_session=${session}`, origin: platform.baseUrl } : {};
  const res = await platform.fetch(`/api/auth/${provider}/start`, {
    method: 'POST',
    headers,
    ...(next !== undefined ? { json: { next } } : {}),
  });
  expect(res.status).toBe(200);
  const set = res.headers.getSetCookie().find((c) => c.startsWith('__Host-pp_oauth_state='))!;
  for (const attribute of [/; Path=\/(;|$)/, /; Secure/i, /; HttpOnly/i]) expect(set).toMatch(attribute);
  expect(set).not.toMatch(/Domain=/i);
  stateCookie = set.split(';')[0];
  return res.body.url as string;
};

/** Opens the callback address as the browser that started the flow would; the session cookie when it signs in. */
async function callback(url: string, sent = stateCookie) {
  const res = await fetch(url, { redirect: 'manual', headers: sent ? { cookie: sent } : {} });
  const session = res.headers.getSetCookie().find((c) => c.startsWith('__Host-pp_session='));
  const cookie = session?.split(';')[0] ?? null;
  return { status: res.status, location: res.headers.get('location'), cookie, body: res.status >= 400 ? await res.json() : null };
}

const accountWith = async (cookie: string) => (await platform.fetch('/api/me/account', { headers: { cookie } })).body;

const newestMail = async (email: string) => (await mailsTo(platform.deps.config.DATA_DIR, email))[0] ?? '';

describe('Google (OpenID Connect, a local oidc-provider)', () => {
  it('signs in a new person with a verified email; the avatar is the picture until a photo is uploaded', async () => {
    const email = `g-${randomUUID()}@example.com`;
    const login = randomUUID();
    googleAccounts.set(login, { email, email_verified: true, picture: 'https://images.example/g.png' });
    const authorize = await start('google');
    expect(new URL(authorize).searchParams.get('code_challenge_method')).toBe('S256');
    expect(new URL(authorize).searchParams.get('nonce')).toBeTruthy();
    const back = await callback(await throughProvider(authorize, login));
    expect(back).toMatchObject({ status: 302, location: '/' });
    expect(await accountWith(back.cookie!)).toMatchObject({
      email,
      emailVerified: true,
      image: 'https://images.example/g.png',
      providerImage: true,
      photo: null,
    });
    const sessions = (await platform.fetch('/api/me/sessions', { headers: { cookie: back.cookie! } })).body;
    expect(sessions[0]).toMatchObject({ current: true, signInMethod: 'google' });
    const signIns = (await platform.fetch('/api/me/sign-in', { headers: { cookie: back.cookie! } })).body;
    expect(signIns.providers).toEqual([
      { provider: 'github', setUp: true, linked: false },
      { provider: 'google', setUp: true, linked: true },
    ]);
  });

  it('signs in to an existing person only when the provider says the email is verified', async () => {
    const existing = await platform.person({ name: 'Existing' });
    const unverified = randomUUID();
    googleAccounts.set(unverified, { email: existing.email, email_verified: false });
    const refused = await callback(await throughProvider(await start('google'), unverified));
    expect(refused).toMatchObject({ status: 422, cookie: null, body: { reason: 'provider' } });

    const verified = randomUUID();
    googleAccounts.set(verified, { email: existing.email, email_verified: true });
    const back = await callback(await throughProvider(await start('google'), verified));
    expect(back.status).toBe(302);
    expect((await accountWith(back.cookie!)).userId).toBe((await existing.client.call('whoami')).userId);
  });

  it('refuses a wrong state, a reused code and a missing PKCE verifier', async () => {
    const login = randomUUID();
    googleAccounts.set(login, { email: `s-${randomUUID()}@example.com`, email_verified: true });

    // Wrong state: the callback address with a state this platform never issued.
    const arrived = new URL(await throughProvider(await start('google'), login));
    const forged = new URL(arrived);
    forged.searchParams.set('state', 'not-ours');
    expect(await callback(forged.href)).toMatchObject({ status: 422, body: { reason: 'state' } });
    expect(await callback(forged.href, '__Host-pp_oauth_state=not-ours')).toMatchObject({ status: 422, body: { reason: 'state' } });
    // Another browser (no state cookie, or another flow's) cannot use this callback address.
    expect(await callback(arrived.href, null)).toMatchObject({ status: 422, body: { reason: 'state' } });
    const mine = stateCookie;
    await start('google');
    expect(await callback(arrived.href)).toMatchObject({ status: 422, body: { reason: 'state' } });
    stateCookie = mine;
    // The real one still works once; the same address again is a spent state.
    expect((await callback(arrived.href)).status).toBe(302);
    expect(await callback(arrived.href)).toMatchObject({ status: 422, body: { reason: 'state' } });

    // A reused code under a fresh state: the provider refuses it.
    const fresh = new URL(await throughProvider(await start('google'), login));
    const reused = new URL(fresh);
    reused.searchParams.set('code', arrived.searchParams.get('code')!);
    expect(await callback(reused.href)).toMatchObject({ status: 422, body: { reason: 'provider' } });

    // A missing verifier: the state's PKCE verifier lost, the provider refuses the code.
    const third = new URL(await throughProvider(await start('google'), login));
    await platform.deps.sql`update oauth_states set code_verifier = '' where state_hash = ${hashSecret(third.searchParams.get('state')!)}`;
    expect(await callback(third.href)).toMatchObject({ status: 422, body: { reason: 'provider' } });
  });
});

describe('where a provider sign-in returns (issue 29)', () => {
  it('goes on to the same-origin path the sign-in started from, and to / for any other address', async () => {
    const login = randomUUID();
    googleAccounts.set(login, { email: `n-${randomUUID()}@example.com`, email_verified: true });
    const back = await callback(await throughProvider(await start('google', undefined, '/projects/abc/links?x=1'), login));
    expect(back).toMatchObject({ status: 302, location: '/projects/abc/links?x=1' });
    expect(back.cookie).not.toBeNull();
    for (const elsewhere of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) {
      expect(await callback(await throughProvider(await start('google', undefined, elsewhere), login))).toMatchObject({
        status: 302,
        location: '/',
      });
    }
    // A refusal still lands on the sign-in page with the reason, wherever it started.
    const refusedLogin = randomUUID();
    googleAccounts.set(refusedLogin, { email: `n-${randomUUID()}@example.com`, email_verified: false });
    const arrived = await throughProvider(await start('google', undefined, '/pipeline'), refusedLogin);
    const res = await fetch(arrived, { redirect: 'manual', headers: { cookie: stateCookie!, accept: 'text/html' } });
    expect(res.headers.get('location')).toMatch(/^\/login\?problem=/);
  });
});

describe('GitHub (a local OAuth 2.0 server)', () => {
  it('signs in with the primary verified address; links, and disconnect refuses the only way in', async () => {
    const email = `gh-${randomUUID()}@example.com`;
    nextGithubUser = {
      id: Math.floor(Math.random() * 1e9),
      avatar_url: 'https://avatars.example/1',
      emails: [
        { email: `other-${randomUUID()}@example.com`, verified: false, primary: false },
        { email, verified: true, primary: true },
      ],
    };
    const back = await callback(await throughProvider(await start('github'), 'n/a'));
    expect(back).toMatchObject({ status: 302, location: '/' });
    const me = await accountWith(back.cookie!);
    expect(me).toMatchObject({ email, providerImage: true, image: 'https://avatars.example/1' });

    const headers = { cookie: back.cookie!, origin: platform.baseUrl };
    const only = await platform.fetch('/api/me/sign-in/github/disconnect', { method: 'POST', headers });
    expect(only).toMatchObject({ status: 422, body: { reason: 'only-way-in' } });
    expect((await platform.fetch('/api/me/sign-in/google/disconnect', { method: 'POST', headers })).status).toBe(404);

    // With a passkey as another way in, it disconnects; the avatar goes with it.
    await platform.deps
      .sql`insert into passkeys (person_id, credential_id, public_key) values (${me.userId}, ${`c-${randomUUID()}`}, ${Buffer.from('k')})`;
    const after = await platform.fetch('/api/me/sign-in/github/disconnect', { method: 'POST', headers });
    expect(after.status).toBe(200);
    expect(after.body.providers[0]).toEqual({ provider: 'github', setUp: true, linked: false });
    expect(await accountWith(back.cookie!)).toMatchObject({ image: null, providerImage: false });
  });

  it('refuses an account whose addresses are all unverified, and links to the signed-in person who asks', async () => {
    nextGithubUser = {
      id: Math.floor(Math.random() * 1e9),
      avatar_url: 'https://avatars.example/2',
      emails: [{ email: `u-${randomUUID()}@example.com`, verified: false, primary: true }],
    };
    expect(await callback(await throughProvider(await start('github'), 'n/a'))).toMatchObject({
      status: 422,
      body: { reason: 'provider' },
    });

    const me = await platform.person({ kind: 'web' });
    const back = await callback(await throughProvider(await start('github', me.token), 'n/a'));
    expect(back.status).toBe(302);
    expect((await accountWith(back.cookie!)).userId).toBe((await me.client.call('whoami')).userId);
    expect((await me.client.call('signIns')).providers[0]).toMatchObject({ provider: 'github', linked: true });
    // A new way in is mailed to the person (security-3 M4).
    const mail = await newestMail(me.email);
    expect(mail).toMatch(/Subject: A new way to sign in was added/);
    expect(mail).toMatch(/A GitHub account was just added/);
  });

  // security-3 M4: a leaked CLI token must not link the attacker's GitHub to its account.
  it('links only from the web app signed in within the step-up window: a bearer token or an older session gets 403', async () => {
    const cli = await platform.person();
    const byBearer = await platform.fetch('/api/auth/github/start', { method: 'POST', token: cli.token });
    expect(byBearer).toMatchObject({
      status: 403,
      body: { error: 'role cannot', reason: 'permission', action: 'providerStart', stepUp: 'browser' },
    });
    expect(byBearer.headers.getSetCookie()).toEqual([]);

    const web = await platform.person({ kind: 'web' });
    await platform.deps.sql`update sessions set created_at = now() - interval '11 minutes' where token_hash = ${hashSecret(web.token)}`;
    const stale = await platform.fetch('/api/auth/github/start', {
      method: 'POST',
      headers: { cookie: `__Host-pp_session=${web.token}`, origin: platform.baseUrl },
    });
    expect(stale).toMatchObject({ status: 403, body: { reason: 'permission', action: 'providerStart', stepUp: 'sign-in-again' } });
    expect(
      await platform.deps.sql`select 1 from oauth_states where person_id = (select id from people where email = ${web.email})`,
    ).toEqual([]);
  });

  it('answers 404 for a provider that is not set up or unknown', async () => {
    const bare = await startPlatform();
    try {
      expect((await bare.fetch('/api/auth/github/start', { method: 'POST' })).status).toBe(404);
      const me = await bare.person();
      expect((await me.client.call('signIns')).providers).toEqual([
        { provider: 'github', setUp: false, linked: false },
        { provider: 'google', setUp: false, linked: false },
      ]);
    } finally {
      await bare.close();
    }
    expect((await platform.fetch('/api/auth/myspace/start', { method: 'POST' })).status).toBe(404);
    expect(
      (await refusal((await platform.person({ kind: 'web' })).browser.call('disconnect', { params: { provider: 'myspace' } }))).status,
    ).toBe(404);
  });
});
