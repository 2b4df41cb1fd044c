import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieValue, mailedToken, SIGN_IN_NONCE_COOKIE, startPlatform, type Platform } from '../../../test/support/platform.js';
import { issueToken } from '../../ops/ops.service.js';

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

describe('bearer tokens', () => {
  it('an operator token reads the account and its personal workspace', async () => {
    const { client, email } = await platform.person({ name: 'Ada' });
    const account = await client.call('whoami');
    expect(account.email).toBe(email);
    expect(account.displayName).toBe('Ada');
    expect(account.workspace).toMatchObject({ kind: 'personal', role: 'owner' });
  });

  it('refuses a connector token: it serves the connector only', async () => {
    const { token } = await platform.person({ kind: 'connector' });
    const res = await platform.fetch('/api/me/account', { token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'sign in first' });
  });

  it('refuses a session after logout, and logout ends only that session', async () => {
    const { token, client } = await platform.person();
    const out = await client.call('logout');
    expect(out).toEqual({ signedOut: true });
    const res = await platform.fetch('/api/me/account', { token });
    expect(res.status).toBe(401);
  });

  it('refuses an expired session', async () => {
    const { token, email } = await platform.person();
    await platform.deps
      .sql`update sessions set expires_at = now() - interval '1 second' where person_id = (select id from people where email = ${email})`;
    expect((await platform.fetch('/api/me/account', { token })).status).toBe(401);
  });

  it('stores only a hash of the token', async () => {
    const { token, email } = await platform.person();
    const rows = await platform.deps
      .sql`select encode(token_hash, 'hex') as h from sessions s join people p on p.id = s.person_id where p.email = ${email}`;
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);
  });
});

describe('emailed sign-in links', () => {
  const linkFor = (email: string) => mailedToken(platform.deps.config.DATA_DIR, email);

  /** Asks for a link as a browser does: answers the nonce cookie the platform set for it. */
  async function ask(email: string): Promise<string> {
    const sent = await platform.fetch('/api/auth/email', { method: 'POST', json: { email } });
    expect(sent.status).toBe(200);
    return `${SIGN_IN_NONCE_COOKIE}=${cookieValue(sent.headers, SIGN_IN_NONCE_COOKIE)}`;
  }
  const verify = (json: object, cookie?: string) =>
    platform.fetch('/api/auth/email/verify', { method: 'POST', json, headers: cookie ? { cookie } : {} });

  it('signs in with a cookie session, once, and creates the person on first use', async () => {
    const email = `mail-${crypto.randomUUID()}@example.com`;
    const sent = await platform.fetch('/api/auth/email', { method: 'POST', json: { email } });
    expect(sent.status).toBe(200);
    expect(sent.body.sent).toBe(true);
    const nonce = sent.headers.getSetCookie().find((c) => c.startsWith(`${SIGN_IN_NONCE_COOKIE}=`))!;
    for (const attribute of [/; Path=\/(;|$)/, /; HttpOnly/i, /; Secure/i, /; SameSite=Lax/i]) expect(nonce).toMatch(attribute);
    const browser = nonce.split(';')[0];
    const token = await linkFor(email);

    const verified = await verify({ token }, browser);
    expect(verified.status).toBe(200);
    const setCookie = verified.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^__Host-pp_session=[^;]+;.*Secure/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    const cookie = setCookie.split(';')[0];

    const me = await platform.fetch('/api/me/account', { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email, emailVerified: true });

    const again = await verify({ token }, browser);
    expect(again.status).toBe(404);
  });

  it('keeps the session in a __Host- cookie and refuses a request carrying a second, planted one', async () => {
    const email = `toss-${crypto.randomUUID()}@example.com`;
    const browser = await ask(email);
    const verified = await verify({ token: await linkFor(email) }, browser);
    const own = verified.headers.get('set-cookie')!.split(';')[0];
    expect(own).toMatch(/^__Host-pp_session=/);
    const attacker = await platform.person();
    // What a content origin could toss in with Domain=: the attacker's own session, under either name.
    const { token: attackerWeb } = await issueToken(platform.deps.sql, attacker.email, { kind: 'web' });
    for (const cookie of [
      `pp_session=${attackerWeb}; ${own}`,
      `${own}; __Host-pp_session=${attackerWeb}`,
      `__Host-pp_session=${attackerWeb}; ${own}`,
    ]) {
      const me = await platform.fetch('/api/me/account', { headers: { cookie } });
      expect(me.status, cookie.replace(/=[^;]+/g, '=…')).toBe(401);
      expect(me.body).toEqual({ error: 'sign in first' });
    }
    expect((await platform.fetch('/api/me/account', { headers: { cookie: own } })).body).toMatchObject({ email });
  });

  it('refuses an expired link', async () => {
    const email = `late-${crypto.randomUUID()}@example.com`;
    const browser = await ask(email);
    const token = await linkFor(email);
    await platform.deps.sql`update email_sign_ins set expires_at = now() - interval '1 second' where email = ${email}`;
    expect((await verify({ token }, browser)).status).toBe(404);
    expect((await verify({ token, confirm: true })).status).toBe(404);
    expect((await platform.fetch('/api/auth/email/check', { method: 'POST', json: { token } })).status).toBe(404);
  });

  it('refuses a cookie mutation from another origin (CSRF) and takes it from the platform origin', async () => {
    const email = `csrf-${crypto.randomUUID()}@example.com`;
    const browser = await ask(email);
    const verified = await verify({ token: await linkFor(email) }, browser);
    const cookie = verified.headers.get('set-cookie')!.split(';')[0];

    const evil = await platform.fetch('/api/auth/logout', { method: 'POST', headers: { cookie, origin: 'http://evil.example' } });
    expect(evil.status).toBe(403);
    expect(evil.body.reason).toBe('csrf');
    const bare = await platform.fetch('/api/auth/logout', { method: 'POST', headers: { cookie } });
    expect(bare.status).toBe(403);
    expect((await platform.fetch('/api/me/account', { headers: { cookie } })).status).toBe(200);

    const own = await platform.fetch('/api/auth/logout', { method: 'POST', headers: { cookie, origin: platform.baseUrl } });
    expect(own.status).toBe(200);
    expect((await platform.fetch('/api/me/account', { headers: { cookie } })).status).toBe(401);
  });
  // security-3 M3: an attacker's own link, opened in the victim's browser, must not quietly sign
  // the victim into the attacker's account.
  it('signs in only the browser that asked, unless the person confirms the masked account; the link stays unspent until then', async () => {
    const email = `asker-${crypto.randomUUID()}@example.com`;
    const asker = await ask(email);
    const token = await linkFor(email);

    // Another browser: no nonce, or a nonce of its own (it asked for a link of its own earlier).
    const other = await ask(`other-${crypto.randomUUID()}@example.com`);
    for (const cookie of [undefined, other]) {
      const res = await verify({ token }, cookie);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ error: 'refused: elsewhere', reason: 'elsewhere', email: 'a\u2022\u2022\u2022@example.com' });
      expect(res.headers.get('set-cookie')).toBeNull();
      const check = await platform.fetch('/api/auth/email/check', { method: 'POST', json: { token }, headers: cookie ? { cookie } : {} });
      expect(check.body).toMatchObject({ email: 'a\u2022\u2022\u2022@example.com', thisBrowser: false });
    }
    // Checking spends nothing: the asking browser is told it is the one, and still signs in.
    const mine = await platform.fetch('/api/auth/email/check', { method: 'POST', json: { token }, headers: { cookie: asker } });
    expect(mine.body).toMatchObject({ thisBrowser: true });
    expect((await platform.deps.sql`select used_at from email_sign_ins where email = ${email}`)[0].usedAt).toBeNull();

    // Confirmed in the other browser: it signs in, once.
    const confirmed = await verify({ token, confirm: true }, other);
    expect(confirmed.status).toBe(200);
    const session = cookieValue(confirmed.headers, '__Host-pp_session')!;
    expect((await platform.fetch('/api/me/account', { headers: { cookie: `__Host-pp_session=${session}` } })).body).toMatchObject({
      email,
    });
    expect((await verify({ token }, asker)).status).toBe(404);
  });

  it('keeps one nonce per browser, so each link the browser asked for stays its own', async () => {
    const email = `twice-${crypto.randomUUID()}@example.com`;
    const browser = await ask(email);
    const first = await linkFor(email);
    const again = await platform.fetch('/api/auth/email', { method: 'POST', json: { email }, headers: { cookie: browser } });
    expect(`${SIGN_IN_NONCE_COOKIE}=${cookieValue(again.headers, SIGN_IN_NONCE_COOKIE)}`).toBe(browser);
    expect((await verify({ token: first }, browser)).status).toBe(200);
  });
});

describe('device login', () => {
  it('is pending until a signed-in person approves, then gives one token, once', async () => {
    const start = await platform.fetch('/api/auth/device', { method: 'POST' });
    expect(start.status).toBe(200);
    const { deviceCode, userCode, verifyUrl, interval, expiresIn } = start.body;
    expect(userCode).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    expect(verifyUrl).toContain(userCode);
    expect(interval).toBeGreaterThan(0);
    expect(expiresIn).toBe(600);

    const pending = await platform.fetch('/api/auth/device/token', { method: 'POST', json: { deviceCode } });
    expect(pending.body).toEqual({ pending: true, interval });

    const approver = await platform.person({ kind: 'web' });
    expect(await approver.browser.call('deviceApprove', { body: { userCode: userCode.toLowerCase() } })).toEqual({ approved: true });

    const got = await platform.fetch('/api/auth/device/token', { method: 'POST', json: { deviceCode } });
    expect(got.status).toBe(200);
    const me = await platform.fetch('/api/me/account', { token: got.body.token });
    expect(me.body.email).toBe(approver.email);

    const second = await platform.fetch('/api/auth/device/token', { method: 'POST', json: { deviceCode } });
    expect(second.status).toBe(404);
  });

  it('cannot be approved without a session, nor twice, nor with an unknown code', async () => {
    const start = await platform.fetch('/api/auth/device', { method: 'POST' });
    expect((await platform.fetch('/api/auth/device/approve', { method: 'POST', json: { userCode: start.body.userCode } })).status).toBe(
      401,
    );
    const p = await platform.person({ kind: 'web' });
    const approve = (userCode: string) =>
      platform.fetch('/api/auth/device/approve', {
        method: 'POST',
        json: { userCode },
        headers: { cookie: `__Host-pp_session=${p.token}`, origin: platform.baseUrl },
      });
    expect((await approve('BBBB-BBBB')).status).toBe(404);
    expect((await approve(start.body.userCode)).status).toBe(200);
    expect((await approve(start.body.userCode)).status).toBe(404);
  });

  // security-3 M4: a leaked CLI token (PP_TOKEN in CI) must not mint more of itself.
  it('is approved only from the web app: a bearer token, CLI or web, gets 403 permission and the code stays pending', async () => {
    const start = await platform.fetch('/api/auth/device', { method: 'POST' });
    for (const kind of ['cli', 'web'] as const) {
      const p = await platform.person({ kind });
      const res = await platform.fetch('/api/auth/device/approve', {
        method: 'POST',
        token: p.token,
        json: { userCode: start.body.userCode },
      });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: 'role cannot', reason: 'permission', action: 'deviceApprove', stepUp: 'browser' });
    }
    expect(
      (await platform.fetch('/api/auth/device/token', { method: 'POST', json: { deviceCode: start.body.deviceCode } })).body,
    ).toMatchObject({ pending: true });
  });
});
