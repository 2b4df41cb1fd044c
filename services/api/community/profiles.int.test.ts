import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { refusal, uniqueSlug } from '../../../test/support/refusal.js';

// Community profiles (spec 2.9, 4.5; issue 18 item 6): the handle by the slug rules, unique among
// people, and the open profile that shows only what the person chose to show.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

describe('own profile', () => {
  it('starts empty, then holds the handle and bio that were set', async () => {
    const { client } = await platform.person({ name: 'Ada Builder' });
    expect(await client.call('getProfile')).toEqual({ handle: null, bio: null });
    const handle = uniqueSlug('ada');
    const set = await client.call('setProfile', { body: { handle, bio: '  Builds checkout demos.  ' } });
    expect(set).toEqual({ handle, bio: 'Builds checkout demos.' });
    expect(await client.call('getProfile')).toEqual(set);
    expect((await client.call('whoami')).handle).toBe(handle);
  });

  it('changes the handle, and clears the bio with null or only spaces', async () => {
    const { client } = await platform.person();
    await client.call('setProfile', { body: { handle: uniqueSlug('first'), bio: 'Hello' } });
    const second = uniqueSlug('second');
    expect(await client.call('setProfile', { body: { handle: second, bio: null } })).toEqual({ handle: second, bio: null });
    expect(await client.call('setProfile', { body: { handle: second, bio: '   ' } })).toEqual({ handle: second, bio: null });
    // Shown on the public profile: a right-to-left override or an invisible space is not kept.
    const bio = (await client.call('setProfile', { body: { handle: second, bio: '\u202Enigol laPyaP\nPay\u200BPal' } })).bio;
    expect(bio).toBe('nigol laPyaP\nPayPal');
  });

  it.each([
    ['format', 'Upper-Case'],
    ['format', 'double--hyphen'],
    ['format', '-edge'],
    ['format', 'edge-'],
    ['format', 'under_score'],
    ['reserved', 'admin'],
    ['impersonation', 'paypal-support'],
    ['impersonation', 'securebank'],
    ['banned', 'nazi-club'],
  ])('refuses a handle with 422 %s (%s), and keeps the profile', async (reason, handle) => {
    const { client } = await platform.person();
    const kept = await client.call('setProfile', { body: { handle: uniqueSlug('kept'), bio: 'kept' } });
    expect(await refusal(client.call('setProfile', { body: { handle, bio: 'changed' } }))).toMatchObject({
      status: 422,
      body: { error: `refused: ${reason}`, reason },
    });
    expect(await client.call('getProfile')).toEqual(kept);
  });

  it("refuses another person's handle with 422 taken; the holder may set it again", async () => {
    const holder = await platform.person();
    const other = await platform.person();
    const handle = uniqueSlug('held');
    await holder.client.call('setProfile', { body: { handle, bio: null } });
    expect(await refusal(other.client.call('setProfile', { body: { handle, bio: 'mine' } }))).toMatchObject({
      status: 422,
      body: { error: 'refused: taken', reason: 'taken' },
    });
    expect(await other.client.call('getProfile')).toEqual({ handle: null, bio: null });
    expect(await holder.client.call('setProfile', { body: { handle, bio: 'again' } })).toEqual({ handle, bio: 'again' });
  });

  it('holds a handle given up from others for 30 days; its last holder may take it back', async () => {
    const first = await platform.person();
    const second = await platform.person();
    const handle = uniqueSlug('given');
    await first.client.call('setProfile', { body: { handle, bio: null } });
    await first.client.call('setProfile', { body: { handle: uniqueSlug('moved'), bio: null } });
    expect(await refusal(second.client.call('setProfile', { body: { handle, bio: null } }))).toMatchObject({
      status: 422,
      body: { reason: 'taken' },
    });
    expect(await first.client.call('setProfile', { body: { handle, bio: 'back' } })).toEqual({ handle, bio: 'back' });
    // Given up again, and the 30 days have passed: anyone may take it.
    await first.client.call('setProfile', { body: { handle: uniqueSlug('moved'), bio: null } });
    await platform.deps.sql`update released_handles set released_at = now() - interval '31 days' where handle = ${handle}`;
    expect(await second.client.call('setProfile', { body: { handle, bio: null } })).toEqual({ handle, bio: null });
  });

  it('lets exactly one of two people racing for a handle have it', async () => {
    const people = await Promise.all([platform.person(), platform.person(), platform.person()]);
    const handle = uniqueSlug('race');
    const results = await Promise.allSettled(people.map((p) => p.client.call('setProfile', { body: { handle, bio: null } })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected')) {
      expect((r as PromiseRejectedResult).reason).toMatchObject({ status: 422, body: { reason: 'taken' } });
    }
  });

  it('checks lengths as the body: a handle of 2 or 41 characters and a bio over 500 are 400 invalid', async () => {
    const { token } = await platform.person();
    for (const json of [
      { handle: 'ab', bio: null },
      { handle: 'a'.repeat(41), bio: null },
      { handle: uniqueSlug('long'), bio: 'x'.repeat(501) },
      { handle: uniqueSlug('nobio') },
    ]) {
      const res = await platform.fetch('/api/me/profile', { method: 'POST', token, json });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid');
    }
  });

  it('needs a sign-in', async () => {
    expect((await platform.fetch('/api/me/profile')).status).toBe(401);
    expect((await platform.fetch('/api/me/profile', { method: 'POST', json: { handle: uniqueSlug('x'), bio: null } })).status).toBe(401);
  });
});

describe('the open profile', () => {
  it('answers without a sign-in and names only the handle and bio the person chose', async () => {
    const { client, email } = await platform.person({ name: 'Grace Private-Name' });
    const handle = uniqueSlug('grace');
    await client.call('setProfile', { body: { handle, bio: 'Demos of billing flows.' } });
    const res = await platform.fetch(`/api/community/people/${handle}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ handle, name: handle, bio: 'Demos of billing flows.', image: null, projects: [] });
    expect(JSON.stringify(res.body)).not.toContain('Grace');
    expect(JSON.stringify(res.body)).not.toContain(email.split('@')[0]);
    // Through the typed client too: the reply fits the contract.
    expect(await client.call('communityProfile', { params: { handle } })).toEqual(res.body);
  });

  it('answers 404 for an unknown handle, and for a handle given up', async () => {
    expect((await platform.fetch(`/api/community/people/${uniqueSlug('nobody')}`)).status).toBe(404);
    const { client } = await platform.person();
    const old = uniqueSlug('old');
    await client.call('setProfile', { body: { handle: old, bio: null } });
    await client.call('setProfile', { body: { handle: uniqueSlug('new'), bio: null } });
    expect(await refusal(client.call('communityProfile', { params: { handle: old } }))).toMatchObject({
      status: 404,
      body: { error: 'not found' },
    });
  });
});
