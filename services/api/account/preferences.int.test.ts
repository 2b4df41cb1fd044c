import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

describe('setName', () => {
  it('sets the chosen name, trimmed, and the account shows it', async () => {
    const me = await platform.person();
    const before = await me.client.call('whoami');
    expect(before).toMatchObject({ nameChosen: false, suggestedName: me.email.split('@')[0] });
    const after = await me.client.call('setName', { body: { name: '  Grace Hopper ' } });
    expect(after).toMatchObject({ name: 'Grace Hopper', displayName: 'Grace Hopper', nameChosen: true });
    expect(after.suggestedName).toBeUndefined();
    expect((await me.client.call('whoami')).name).toBe('Grace Hopper');
  });

  it('names the personal workspace from the chosen name while it has its first name, never one its owner gave (issue 29)', async () => {
    const me = await platform.person();
    const local = me.email.split('@')[0];
    expect((await me.client.call('whoami')).workspace.name).toBe(`${local}'s workspace`);
    expect((await me.client.call('setName', { body: { name: 'Maya Rao' } })).workspace.name).toBe("Maya Rao's workspace");
    expect((await me.client.call('setName', { body: { name: 'Maya R.' } })).workspace.name).toBe("Maya R.'s workspace");
    // A name of 80 characters still makes a workspace name of at most 80, as renameWorkspace takes.
    const long = (await me.client.call('setName', { body: { name: 'é'.repeat(80) } })).workspace.name;
    expect([long, [...long].length]).toEqual([`${'é'.repeat(67)}…'s workspace`, 80]);
    expect((await me.client.call('setName', { body: { name: 'Maya R.' } })).workspace.name).toBe("Maya R.'s workspace");
    const { workspace } = await me.client.call('whoami');
    await me.client.call('renameWorkspace', { params: { workspaceId: workspace.id }, body: { name: 'Rao Studio' } });
    expect((await me.client.call('setName', { body: { name: 'Maya' } })).workspace.name).toBe('Rao Studio');
  });

  it('refuses an empty name, spaces only, and more than 80 characters', async () => {
    const me = await platform.person({ name: 'Kept' });
    for (const name of ['', '   ', 'x'.repeat(81)]) {
      const r = await platform.fetch('/api/me/name', { method: 'POST', token: me.token, json: { name } });
      expect(r.status).toBe(400);
    }
    expect((await me.client.call('whoami')).name).toBe('Kept');
  });
});

describe('preferences', () => {
  it('answers the defaults when none were set', async () => {
    const me = await platform.person();
    expect(await me.client.call('myPreferences')).toEqual({ welcomeSeenAt: null, feedbackTabFolded: false });
  });

  it('records the welcome as seen only the first time', async () => {
    const me = await platform.person();
    const first = await me.client.call('welcomeSeen');
    expect(first.welcomeSeenAt).not.toBeNull();
    await new Promise((r) => setTimeout(r, 20));
    const second = await me.client.call('welcomeSeen');
    expect(second.welcomeSeenAt).toBe(first.welcomeSeenAt);
    expect((await me.client.call('myPreferences')).welcomeSeenAt).toBe(first.welcomeSeenAt);
  });

  it('folds and unfolds the feedback tab, keeping the welcome', async () => {
    const me = await platform.person();
    const seen = await me.client.call('welcomeSeen');
    expect(await me.client.call('foldFeedbackTab', { body: { folded: true } })).toEqual({
      welcomeSeenAt: seen.welcomeSeenAt,
      feedbackTabFolded: true,
    });
    expect(await me.client.call('myPreferences')).toEqual({ welcomeSeenAt: seen.welcomeSeenAt, feedbackTabFolded: true });
    expect((await me.client.call('foldFeedbackTab', { body: { folded: false } })).feedbackTabFolded).toBe(false);
    // Folding first, then the welcome: both kept.
    const other = await platform.person();
    await other.client.call('foldFeedbackTab', { body: { folded: true } });
    expect(await other.client.call('welcomeSeen')).toMatchObject({ feedbackTabFolded: true, welcomeSeenAt: expect.any(String) });
  });

  it("keeps each person's preferences their own", async () => {
    const a = await platform.person();
    const b = await platform.person();
    await a.client.call('foldFeedbackTab', { body: { folded: true } });
    expect(await b.client.call('myPreferences')).toEqual({ welcomeSeenAt: null, feedbackTabFolded: false });
  });
});
