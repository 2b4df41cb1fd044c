import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { refusal } from '../../../test/support/refusal.js';

// Passkey endpoints without a browser: the ceremony itself is proved in Chromium
// (test/e2e/passkeys.e2e.test.ts); here, the rules around it. Adding or removing a passkey is
// account power: each person here calls as the web app does, with a fresh cookie session.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

type Person = Awaited<ReturnType<Platform['person']>>;
const idOf = async (p: Person) => (await p.browser.call('whoami')).userId;

async function storedPasskey(p: Person): Promise<string> {
  const [row] = await platform.deps.sql<{ id: string }[]>`
    insert into passkeys (person_id, credential_id, public_key, device_type) values (${await idOf(p)}, ${`cred-${crypto.randomUUID()}`}, ${Buffer.from('k')}, 'singleDevice')
    returning id`;
  return row.id;
}

/** An answer shaped like an authenticator's, carrying `challenge`; it can never verify. */
const answerFor = (challenge: string, type = 'webauthn.create') => ({
  id: 'AAAA',
  rawId: 'AAAA',
  type: 'public-key',
  clientExtensionResults: {},
  response: {
    clientDataJSON: Buffer.from(JSON.stringify({ type, challenge, origin: platform.baseUrl })).toString('base64url'),
    attestationObject: 'AAAA',
    authenticatorData: 'AAAA',
    signature: 'AAAA',
  },
});

describe('passkeys', () => {
  it("lists own passkeys, counts them in signIns, and removes one; another person's is 404", async () => {
    const me = await platform.person({ kind: 'web' });
    const other = await platform.person({ kind: 'web' });
    expect(await me.browser.call('signIns')).toEqual({
      providers: [
        { provider: 'github', setUp: false, linked: false },
        { provider: 'google', setUp: false, linked: false },
      ],
      passkeys: 0,
      magicLinks: true,
    });
    const first = await storedPasskey(me);
    const second = await storedPasskey(me);
    const theirs = await storedPasskey(other);
    const list = await me.browser.call('passkeys');
    expect(list.map((p) => p.id)).toEqual([first, second]);
    expect(JSON.stringify(list)).not.toContain('cred-');
    expect((await me.browser.call('signIns')).passkeys).toBe(2);

    for (const passkeyId of [theirs, crypto.randomUUID(), 'nope']) {
      expect((await refusal(me.browser.call('removePasskey', { params: { passkeyId } }))).status).toBe(404);
    }
    expect((await me.browser.call('removePasskey', { params: { passkeyId: first } })).map((p) => p.id)).toEqual([second]);
    expect((await other.browser.call('passkeys')).map((p) => p.id)).toEqual([theirs]);
  });

  it("names a passkey and renames it; a blank or long name is 400 invalid, another person's is 404 (issue 29, item 7)", async () => {
    const me = await platform.person({ kind: 'web' });
    const other = await platform.person({ kind: 'web' });
    const mine = await storedPasskey(me);
    const theirs = await storedPasskey(other);
    expect((await me.browser.call('passkeys'))[0]).toMatchObject({ id: mine, name: null });
    const renamed = await me.browser.call('renamePasskey', { params: { passkeyId: mine }, body: { name: '  Work laptop  ' } });
    expect(renamed).toEqual([expect.objectContaining({ id: mine, name: 'Work laptop' })]);
    for (const name of ['   ', 'x'.repeat(61)]) {
      const r = await refusal(me.browser.call('renamePasskey', { params: { passkeyId: mine }, body: { name } }));
      expect([r.status, r.body.error]).toEqual([400, 'invalid']);
    }
    for (const passkeyId of [theirs, crypto.randomUUID(), 'nope']) {
      expect((await refusal(me.browser.call('renamePasskey', { params: { passkeyId }, body: { name: 'Mine now' } }))).status).toBe(404);
    }
    expect((await me.browser.call('passkeys'))[0].name).toBe('Work laptop');
    expect((await other.browser.call('passkeys'))[0].name).toBeNull();
  });

  it('gives creation options for a discoverable credential with user verification required, the RP from config', async () => {
    const me = await platform.person({ kind: 'web' });
    await storedPasskey(me);
    const options = await me.browser.call('passkeyRegisterOptions');
    expect(options).toMatchObject({
      rp: { id: '127.0.0.1' },
      user: { name: (await me.browser.call('whoami')).email },
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      attestation: 'none',
      timeout: 300_000,
    });
    expect((options.excludeCredentials as unknown[]).length).toBe(1);
    const custom = await startPlatform({ env: { WEBAUTHN_RP_ID: 'rooms.example', WEBAUTHN_ORIGIN: 'https://rooms.example' } });
    try {
      const there = await custom.person({ kind: 'web' });
      expect((await there.browser.call('passkeyRegisterOptions')).rp).toMatchObject({ id: 'rooms.example' });
    } finally {
      await custom.close();
    }
  });

  it("spends a challenge once, refuses an expired one and another person's", async () => {
    const me = await platform.person({ kind: 'web' });
    const other = await platform.person({ kind: 'web' });
    const { challenge } = (await me.browser.call('passkeyRegisterOptions')) as { challenge: string };
    // Another person cannot answer my challenge, and trying spends it.
    const stolen = await refusal(other.browser.call('registerPasskey', { body: { response: answerFor(challenge) } }));
    expect(stolen).toMatchObject({ status: 422, body: { reason: 'passkey' } });
    expect((await refusal(me.browser.call('registerPasskey', { body: { response: answerFor(challenge) } }))).body.detail).toMatch(
      /challenge/,
    );

    const late = (await me.browser.call('passkeyRegisterOptions')) as { challenge: string };
    await platform.deps.sql`update webauthn_challenges set expires_at = now() - interval '1 second' where challenge = ${late.challenge}`;
    expect((await refusal(me.browser.call('registerPasskey', { body: { response: answerFor(late.challenge) } }))).body.detail).toMatch(
      /challenge/,
    );

    // An answer that does not verify still spends its challenge.
    const fresh = (await me.browser.call('passkeyRegisterOptions')) as { challenge: string };
    const bad = await refusal(me.browser.call('registerPasskey', { body: { response: answerFor(fresh.challenge) } }));
    expect(bad).toMatchObject({ status: 422, body: { reason: 'passkey' } });
    expect(await platform.deps.sql`select 1 from webauthn_challenges where challenge = ${fresh.challenge}`).toHaveLength(0);
    expect(await me.browser.call('passkeys')).toEqual([]);
  });

  it('refuses a sign-in answer for an unknown passkey, or with a registration challenge, and sets no cookie', async () => {
    const opts = await platform.fetch('/api/auth/passkey/options', { method: 'POST' });
    expect(opts.status).toBe(200);
    expect(opts.body).toMatchObject({ rpId: '127.0.0.1', userVerification: 'required' });
    const unknown = await platform.fetch('/api/auth/passkey', {
      method: 'POST',
      json: { response: answerFor(opts.body.challenge, 'webauthn.get') },
    });
    expect(unknown).toMatchObject({ status: 422, body: { reason: 'passkey' } });
    expect(unknown.headers.get('set-cookie')).toBeNull();

    const me = await platform.person({ kind: 'web' });
    const { challenge } = (await me.browser.call('passkeyRegisterOptions')) as { challenge: string };
    const wrongKind = await platform.fetch('/api/auth/passkey', {
      method: 'POST',
      json: { response: answerFor(challenge, 'webauthn.get') },
    });
    expect(wrongKind).toMatchObject({ status: 422, body: { reason: 'passkey', detail: expect.stringMatching(/challenge/) } });
  });

  it('disconnect: no provider is linked, so every name is 404', async () => {
    const me = await platform.person({ kind: 'web' });
    for (const provider of ['github', 'google', 'myspace']) {
      expect((await refusal(me.browser.call('disconnect', { params: { provider } }))).status).toBe(404);
    }
  });
});
