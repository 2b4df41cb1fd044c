import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { refusal } from '../../../test/support/refusal.js';
import { createClient } from '@demo-rooms/contract';
import { createSession } from '../../data/sessions.sql.js';
import { deviceOf } from './sessions.service.js';

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

const firefoxMac = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:128.0) Gecko/20100101 Firefox/128.0';
const chromeAndroid =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36';

/** A person with three sessions: the operator's bearer token, a browser's and the tool's. */
async function withSessions() {
  const me = await platform.person();
  const [{ id: personId }] = await platform.deps.sql<{ id: string }[]>`select id from people where email = ${me.email}`;
  const web = await createSession(platform.deps.sql, { personId, kind: 'web', days: 30, method: 'email', userAgent: firefoxMac });
  const cli = await createSession(platform.deps.sql, {
    personId,
    kind: 'cli',
    days: 30,
    method: 'device',
    userAgent: 'pitch/1.2.0 node/24.1.0 (linux)',
  });
  return { ...me, personId, web, cli };
}

describe('own sessions', () => {
  it("says each session's kind, when it was last used, and a connector token's name and read-only flag (issue 29, item 7)", async () => {
    const me = await withSessions();
    const connector = await createSession(platform.deps.sql, {
      personId: me.personId,
      kind: 'connector',
      days: 30,
      method: 'connector',
      readOnly: true,
      userAgent: 'connector: Claude at work',
    });
    const before = await me.client.call('sessions');
    const byId = (list: typeof before, id: string) => list.find((s) => s.id === id)!;
    // The caller's own session was used by this very request.
    expect(before.find((s) => s.current)!.lastUsedAt).not.toBeNull();
    expect(byId(before, me.cli.sessionId)).toMatchObject({ kind: 'cli', readOnly: false, connectorName: null, lastUsedAt: null });
    expect(byId(before, connector.sessionId)).toMatchObject({
      kind: 'connector',
      readOnly: true,
      connectorName: 'Claude at work',
      lastUsedAt: null,
    });

    // A request with the tool's token marks it used.
    await createClient({ baseUrl: platform.baseUrl, token: me.cli.token }).call('whoami');
    const used = byId(await me.client.call('sessions'), me.cli.sessionId).lastUsedAt!;
    expect(Date.now() - Date.parse(used)).toBeLessThan(60_000);
    // Moved on at most once a minute: a second request within the minute writes nothing.
    await platform.deps.sql`update sessions set last_used_at = now() - interval '30 seconds' where id = ${me.cli.sessionId}`;
    const [{ at }] = await platform.deps.sql<{ at: Date }[]>`select last_used_at as at from sessions where id = ${me.cli.sessionId}`;
    await createClient({ baseUrl: platform.baseUrl, token: me.cli.token }).call('whoami');
    expect(byId(await me.client.call('sessions'), me.cli.sessionId).lastUsedAt).toBe(at.toISOString());
  });

  it('lists every live session newest first, marks the caller, and never shows a token', async () => {
    const me = await withSessions();
    const list = await me.client.call('sessions');
    expect(list.map((s) => s.id)).toEqual([me.cli.sessionId, me.web.sessionId, expect.any(String)]);
    expect(list.filter((s) => s.current)).toHaveLength(1);
    expect(list[2]).toMatchObject({ current: true, signInMethod: 'operator' });
    expect(list[0]).toMatchObject({
      current: false,
      signInMethod: 'device',
      device: 'Command-line tool',
      userAgent: expect.stringMatching(/^pitch\//),
    });
    expect(list[1]).toMatchObject({ signInMethod: 'email', device: 'Firefox on macOS', userAgent: firefoxMac });
    expect(Date.parse(list[1].expiresAt) - Date.parse(list[1].createdAt)).toBeCloseTo(30 * 86400_000, -5);
    const text = JSON.stringify(list);
    for (const token of [me.token, me.web.token, me.cli.token]) expect(text).not.toContain(token);

    // The cookie's session sees itself as the current one.
    const byCookie = await platform.fetch('/api/me/sessions', { headers: { cookie: `__Host-pp_session=${me.web.token}` } });
    expect(byCookie.body.find((s: { current: boolean }) => s.current).id).toBe(me.web.sessionId);
  });

  it('leaves out ended and expired sessions', async () => {
    const me = await withSessions();
    await platform.deps.sql`update sessions set expires_at = now() - interval '1 second' where id = ${me.web.sessionId}`;
    await createClient({ baseUrl: platform.baseUrl, token: me.cli.token }).call('logout');
    expect((await me.client.call('sessions')).map((s) => s.id)).not.toContain(me.web.sessionId);
    expect((await me.client.call('sessions')).map((s) => s.id)).not.toContain(me.cli.sessionId);
  });

  it('revokes one own session: its token stops at once, the others keep working', async () => {
    const me = await withSessions();
    const left = await me.client.call('revokeSession', { params: { sessionId: me.cli.sessionId } });
    expect(left.map((s) => s.id)).not.toContain(me.cli.sessionId);
    expect(left).toHaveLength(2);
    expect((await platform.fetch('/api/me/account', { token: me.cli.token })).status).toBe(401);
    expect((await platform.fetch('/api/me/account', { token: me.token })).status).toBe(200);
    // Twice is unknown.
    expect((await refusal(me.client.call('revokeSession', { params: { sessionId: me.cli.sessionId } }))).status).toBe(404);
  });

  it("answers 404 for another person's session, an unknown id and a malformed one, and ends nothing", async () => {
    const me = await withSessions();
    const other = await withSessions();
    for (const sessionId of [other.web.sessionId, crypto.randomUUID(), 'not-an-id']) {
      expect((await refusal(me.client.call('revokeSession', { params: { sessionId } }))).status).toBe(404);
    }
    expect((await platform.fetch('/api/me/account', { token: other.web.token })).status).toBe(200);
    expect(await other.client.call('sessions')).toHaveLength(3);
  });

  it('signs out everywhere, the calling session included, and says how many', async () => {
    const me = await withSessions();
    const other = await withSessions();
    expect(await me.client.call('signOutEverywhere')).toEqual({ signedOut: 3 });
    for (const token of [me.token, me.web.token, me.cli.token]) {
      expect((await platform.fetch('/api/me/account', { token })).status).toBe(401);
    }
    expect(await other.client.call('sessions')).toHaveLength(3);
  });

  it('signing out everywhere from the browser clears its cookie', async () => {
    const me = await withSessions();
    const res = await platform.fetch('/api/me/sessions/revoke-all', {
      method: 'POST',
      headers: { cookie: `__Host-pp_session=${me.web.token}`, origin: platform.baseUrl },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ signedOut: 3 });
    expect(res.headers.get('set-cookie')).toMatch(/^__Host-pp_session=;/);
  });
});

describe('device words', () => {
  it('reads a coarse device from the user agent', () => {
    expect(deviceOf(chromeAndroid, 'web')).toBe('Chrome on Android');
    expect(deviceOf(firefoxMac, 'web')).toBe('Firefox on macOS');
    expect(deviceOf(null, 'web')).toBe('Unknown device');
    expect(deviceOf(null, 'cli')).toBe('Command-line tool');
  });
});
