import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createClient, SESSION_COOKIE } from '@demo-rooms/contract';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { refusal } from '../../../test/support/refusal.js';
import { hashSecret } from '../../core/infra/ids.js';
import { STEP_UP_MINUTES } from '../auth/step-up.js';

// Account power (security-3 M4): adding or removing a way in, minting connector tokens, deleting
// the account and approving a device. A bearer token (a leaked PP_TOKEN) gets the spec's 403
// `permission` for each; a browser session signed in longer ago than the step-up window gets it
// too, with `stepUp: sign-in-again`, and succeeds once the person signed in again.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

type Person = Awaited<ReturnType<Platform['person']>>;
const idOf = async (p: Person) => (await p.client.call('whoami')).userId;
const inBrowser = (token: string) =>
  createClient({ baseUrl: platform.baseUrl, headers: { cookie: `${SESSION_COOKIE}=${token}`, origin: platform.baseUrl } });
const age = (token: string, minutes: number) =>
  platform.deps.sql`update sessions set created_at = now() - make_interval(mins => ${minutes}) where token_hash = ${hashSecret(token)}`;

async function storedPasskey(personId: string, addedDaysAgo = 0): Promise<string> {
  const [row] = await platform.deps.sql<{ id: string }[]>`
    insert into passkeys (person_id, credential_id, public_key, created_at)
    values (${personId}, ${`cred-${crypto.randomUUID()}`}, ${Buffer.from('k')}, now() - make_interval(days => ${addedDaysAgo}))
    returning id`;
  return row.id;
}

/** Each guarded operation, called through `client`: the refusal, or null when it was allowed. */
async function everyGuarded(client: ReturnType<typeof createClient>, p: { email: string; passkeyId: string; userCode: string }) {
  const tries = {
    passkeyRegisterOptions: () => client.call('passkeyRegisterOptions'),
    registerPasskey: () => client.call('registerPasskey', { body: { response: { id: 'AAAA' } } }),
    removePasskey: () => client.call('removePasskey', { params: { passkeyId: p.passkeyId } }),
    disconnect: () => client.call('disconnect', { params: { provider: 'github' } }),
    createConnectorToken: () => client.call('createConnectorToken', { body: { name: 'assistant' } }),
    deleteAccount: () => client.call('deleteAccount', { body: { confirm: p.email } }),
    deviceApprove: () => client.call('deviceApprove', { body: { userCode: p.userCode } }),
    signOutEverywhere: () => client.call('signOutEverywhere', { body: { removeMethodsAddedWithinDays: 7 } }),
  };
  const out: Record<string, unknown> = {};
  for (const [operation, attempt] of Object.entries(tries)) {
    out[operation] = await attempt().then(
      () => 'allowed',
      (err) => (err instanceof ApiError ? err.body : Promise.reject(err)),
    );
  }
  return out;
}

const refusedAs = (stepUp: 'browser' | 'sign-in-again', operations: string[]) =>
  Object.fromEntries(
    operations.map((action) => [
      action,
      expect.objectContaining({ error: 'role cannot', reason: 'permission', action, stepUp, detail: expect.any(String) }),
    ]),
  );

const accountPower = [
  'passkeyRegisterOptions',
  'registerPasskey',
  'removePasskey',
  'disconnect',
  'createConnectorToken',
  'deleteAccount',
  'signOutEverywhere',
];

describe('account power and bearer tokens', () => {
  it('refuses every account-security operation to a bearer CLI or web token with 403 permission, and changes nothing', async () => {
    for (const kind of ['cli', 'web'] as const) {
      const me = await platform.person({ kind });
      const passkeyId = await storedPasskey(await idOf(me));
      const { userCode, deviceCode } = (await platform.fetch('/api/auth/device', { method: 'POST' })).body;
      const answers = await everyGuarded(me.client, { email: me.email, passkeyId, userCode });
      expect(answers, kind).toEqual(refusedAs('browser', [...accountPower, 'deviceApprove']));

      expect((await me.client.call('passkeys')).map((p) => p.id)).toEqual([passkeyId]);
      expect((await me.client.call('sessions')).length).toBe(1);
      expect((await me.client.call('whoami')).email).toBe(me.email);
      expect((await platform.fetch('/api/auth/device/token', { method: 'POST', json: { deviceCode } })).body).toEqual({
        pending: true,
        interval: 2,
      });
      expect(await platform.deps.sql`select 1 from webauthn_challenges where person_id = ${await idOf(me)}`).toEqual([]);
    }
  });

  it(`asks a browser session older than ${STEP_UP_MINUTES} minutes to sign in again, and allows it after an emailed-link sign-in`, async () => {
    const me = await platform.person({ kind: 'web' });
    await age(me.token, STEP_UP_MINUTES + 1);
    const passkeyId = await storedPasskey(await idOf(me));
    const { userCode } = (await platform.fetch('/api/auth/device', { method: 'POST' })).body;
    const stale = await everyGuarded(me.browser, { email: me.email, passkeyId, userCode });
    // Approving a device takes a browser session, however old: the rest a recent one.
    expect(stale).toEqual({ ...refusedAs('sign-in-again', accountPower), deviceApprove: 'allowed' });
    expect((await me.browser.call('passkeys')).map((p) => p.id)).toEqual([passkeyId]);

    // Signing in again (the emailed link, in this browser) opens a fresh session: it may.
    const again = inBrowser(await platform.signInByMail(me.email));
    expect((await again.call('passkeyRegisterOptions')).authenticatorSelection).toMatchObject({ userVerification: 'required' });
    expect(await again.call('removePasskey', { params: { passkeyId } })).toEqual([]);
    const minted = await again.call('createConnectorToken', { body: { name: 'assistant' } });
    expect(minted.token).toMatch(/^pp_con_/);
    expect(await again.call('deleteAccount', { body: { confirm: me.email } })).toEqual({ deleted: true });
  });
});

describe('signOutEverywhere', () => {
  it('with removeMethodsAddedWithinDays also removes the passkeys and provider links added in those days; without it keeps them', async () => {
    const me = await platform.person({ kind: 'web' });
    const personId = await idOf(me);
    const old = await storedPasskey(personId, 30);
    const recent = await storedPasskey(personId, 2);
    await platform.deps
      .sql`insert into provider_links (person_id, provider, subject, created_at) values (${personId}, 'github', ${crypto.randomUUID()}, now() - interval '1 day')`;
    await platform.deps
      .sql`insert into provider_links (person_id, provider, subject, created_at) values (${personId}, 'google', ${crypto.randomUUID()}, now() - interval '40 days')`;

    // Without the option: sessions end, every way in stays.
    expect(await me.browser.call('signOutEverywhere')).toEqual({ signedOut: 1 });
    const kept = await platform.deps.sql`select id from passkeys where person_id = ${personId}`;
    expect(kept).toHaveLength(2);

    const back = inBrowser(await platform.signInByMail(me.email));
    // A device the attacker had approved but not collected yet is cancelled too.
    const { userCode, deviceCode } = (await platform.fetch('/api/auth/device', { method: 'POST' })).body;
    await back.call('deviceApprove', { body: { userCode } });
    expect(await back.call('signOutEverywhere', { body: { removeMethodsAddedWithinDays: 7 } })).toEqual({
      signedOut: 1,
      methodsRemoved: 2,
    });
    expect((await platform.deps.sql<{ id: string }[]>`select id from passkeys where person_id = ${personId}`).map((r) => r.id)).toEqual([
      old,
    ]);
    expect(
      (await platform.deps.sql<{ provider: string }[]>`select provider from provider_links where person_id = ${personId}`).map(
        (r) => r.provider,
      ),
    ).toEqual(['google']);
    expect(recent).not.toBe(old);
    expect((await platform.fetch('/api/auth/device/token', { method: 'POST', json: { deviceCode } })).status).toBe(404);
  });

  it('refuses the option to a bearer token, and out of range days as invalid', async () => {
    const cli = await platform.person();
    const personId = await idOf(cli);
    await storedPasskey(personId, 1);
    expect(await refusal(cli.client.call('signOutEverywhere', { body: { removeMethodsAddedWithinDays: 7 } }))).toMatchObject({
      status: 403,
      body: { stepUp: 'browser' },
    });
    const web = await platform.person({ kind: 'web' });
    expect(await refusal(web.browser.call('signOutEverywhere', { body: { removeMethodsAddedWithinDays: 0 } }))).toMatchObject({
      status: 400,
    });
    expect(await platform.deps.sql`select 1 from passkeys where person_id = ${personId}`).toHaveLength(1);
    expect((await cli.client.call('sessions')).length).toBe(1);
  });
});
