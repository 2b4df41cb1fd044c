import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { refusal } from '../../../test/support/refusal.js';
import { roomPalettes } from '@demo-rooms/contract';
import { contrastRatio } from '../../core/rules/contrast.js';

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

type Person = Awaited<ReturnType<Platform['person']>>;

/** A team with `person` in it as `role`, made their active workspace. */
async function inTeam(person: Person, role: 'owner' | 'member', plan: string | null = 'team') {
  const sql = platform.deps.sql;
  const [me] = await sql<{ id: string }[]>`select id from people where email = ${person.email}`;
  const [team] = await sql<{ id: string }[]>`insert into workspaces (name, kind, plan) values ('Acme team', 'team', ${plan}) returning id`;
  await sql`insert into memberships (workspace_id, person_id, role) values (${team.id}, ${me.id}, ${role})`;
  await sql`update sessions set active_workspace_id = ${team.id} where person_id = ${me.id}`;
  return team.id;
}

describe('the brand', () => {
  it('starts empty, takes a name and an accent, and says whether the plan shows it', async () => {
    const p = await platform.person({ plan: 'pro' });
    const empty = await p.client.call('getBrand');
    expect(empty).toMatchObject({ name: null, accent: null, logo: null, planAllows: true });
    expect(empty.workspaceName).toBeTruthy();
    const set = await p.client.call('setBrand', { body: { name: 'Acme', accent: '#3F61E1' } });
    expect(set).toMatchObject({ name: 'Acme', accent: '#3f61e1', planAllows: true });
    expect(set.problems).toBeUndefined();
    expect(await p.client.call('getBrand')).toEqual(set);
    const list = await p.client.call('listWorkspaces');
    expect(list[0].brand).toEqual({ name: 'Acme', hasLogo: false });
    expect(await p.client.call('setBrand', { body: { name: null, accent: null } })).toMatchObject({ name: null, accent: null });

    const free = await platform.person();
    expect(await free.client.call('setBrand', { body: { name: 'Kept', accent: '#3f61e1' } })).toMatchObject({
      name: 'Kept',
      planAllows: false,
    });
  });

  it('refuses an accent unreadable in the room: 400 contrast, each failing pair with a passing shade', async () => {
    const p = await platform.person({ plan: 'pro' });
    const { status, body } = await refusal(p.client.call('setBrand', { body: { name: 'Sun', accent: '#ffd000' } }));
    expect(status).toBe(400);
    expect(body.reason).toBe('contrast');
    expect(body.error).toMatch(/^unreadable: accent on background is 1\.34:1 in the light palette, needs 3:1/);
    const problems = body.problems as { pair: string; scheme: string; ratio: number; needed: number; token: string; shade: string }[];
    expect(problems.map((x) => [x.scheme, x.pair])).toEqual([
      ['light', 'accent on background'],
      ['light', 'accent on surface'],
    ]);
    for (const x of problems) {
      expect(x.token).toBe('accent');
      for (const ground of [
        roomPalettes.light.background,
        roomPalettes.light.surface,
        roomPalettes.dark.background,
        roomPalettes.dark.surface,
      ]) {
        expect(contrastRatio(x.shade, ground)).toBeGreaterThanOrEqual(3);
      }
    }
    // Nothing was kept, and the shade offered is taken.
    expect((await p.client.call('getBrand')).accent).toBeNull();
    expect((await p.client.call('setBrand', { body: { name: 'Sun', accent: problems[0].shade } })).accent).toBe(problems[0].shade);
  });

  it('refuses a body that does not fit: 400 invalid', async () => {
    const p = await platform.person({ plan: 'pro' });
    for (const body of [
      { name: 'A', accent: 'red' },
      { name: '', accent: null },
      { name: 'x'.repeat(81), accent: null },
      { accent: null },
    ]) {
      const res = await platform.fetch('/api/brand', { method: 'POST', token: p.token, json: body });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid');
    }
  });
});

describe('the theme', () => {
  it("answers the room's own look until one is set, then the theme, kept on any plan", async () => {
    const p = await platform.person({ plan: 'studio' });
    const own = await p.client.call('getTheme');
    expect(own).toMatchObject({ theme: null, planAllows: true, shownOn: 'pro', problems: [], fellBack: [] });
    expect(own.effective).toMatchObject({
      ...roomPalettes.light,
      radius: 'soft',
      font: 'system',
      scheme: 'light dark',
      'dark.text': roomPalettes.dark.text,
    });

    const theme = { background: '#FFFFFF', text: '#101820', accent: '#0b6e4f', radius: 'round', font: 'serif' } as const;
    const set = await p.client.call('setTheme', { body: { theme } });
    expect(set.theme).toEqual({ background: '#ffffff', text: '#101820', accent: '#0b6e4f', radius: 'round', font: 'serif' });
    expect(set.effective).toMatchObject({
      background: '#ffffff',
      text: '#101820',
      accent: '#0b6e4f',
      accentText: '#ffffff',
      surface: roomPalettes.light.surface,
      radius: 'round',
      font: 'serif',
      scheme: 'light',
    });
    expect(await p.client.call('getTheme')).toEqual(set);

    const reset = await p.client.call('resetTheme');
    expect(reset).toMatchObject({ theme: null, effective: own.effective });
  });

  it("keeps a theme on a plan without own branding but draws the room's own, saying what fell back", async () => {
    const p = await platform.person({ plan: 'solo' });
    const state = await p.client.call('setTheme', { body: { theme: { text: '#000000', font: 'rounded' } } });
    expect(state).toMatchObject({ theme: { text: '#000000', font: 'rounded' }, planAllows: false, shownOn: 'pro' });
    expect(state.effective).toMatchObject({ text: roomPalettes.light.text, font: 'system' });
    expect(state.fellBack).toEqual(['text: the plan has no own branding', 'font: the plan has no own branding']);
  });

  it('refuses an unreadable theme with 400 contrast: #777777 text on white is 4.48:1', async () => {
    const p = await platform.person({ plan: 'pro' });
    const { status, body } = await refusal(
      p.client.call('setTheme', { body: { theme: { background: '#ffffff', surface: '#ffffff', text: '#777777' } } }),
    );
    expect(status).toBe(400);
    expect(body).toMatchObject({
      reason: 'contrast',
      error: 'unreadable: text on background is 4.48:1 in the light palette, needs 4.5:1 (and 1 more)',
    });
    expect(body.problems).toEqual([
      expect.objectContaining({ pair: 'text on background', ratio: 4.48, needed: 4.5, token: 'text', shade: '#767676' }),
      expect.objectContaining({ pair: 'text on surface', ratio: 4.48, needed: 4.5, token: 'text', shade: '#767676' }),
    ]);
    expect((await p.client.call('getTheme')).theme).toBeNull();
    expect(
      (await p.client.call('setTheme', { body: { theme: { background: '#ffffff', surface: '#ffffff', text: '#767676' } } })).problems,
    ).toEqual([]);
  });

  it('checks a theme with the stored accent or a given one, and changes nothing', async () => {
    const p = await platform.person({ plan: 'pro' });
    await p.client.call('setBrand', { body: { name: null, accent: '#3f61e1' } });
    // A grey ground under the stored blue accent: the blue is too dark on it.
    const grey = { background: '#4a4a4a', surface: '#4a4a4a', muted: '#d0d0d0' };
    const checked = await p.client.call('checkTheme', { body: { theme: grey } });
    expect(checked.effective).toMatchObject({ background: '#4a4a4a', accent: '#3f61e1', scheme: 'dark' });
    expect(checked.problems.map((x) => x.pair)).toEqual(['accent on background', 'accent on surface']);
    const shade = checked.problems[0].shade!;
    expect((await p.client.call('checkTheme', { body: { theme: grey, accent: shade } })).problems).toEqual([]);
    expect((await p.client.call('checkTheme', { body: { theme: {}, accent: null } })).effective.accent).toBe(roomPalettes.light.accent);
    expect((await p.client.call('getTheme')).theme).toBeNull();
    // The stored accent is refused in that theme too; with the shade as the theme's own accent it is taken.
    expect((await refusal(p.client.call('setTheme', { body: { theme: grey } }))).body.reason).toBe('contrast');
    expect((await p.client.call('setTheme', { body: { theme: { ...grey, accent: shade } } })).problems).toEqual([]);
  });

  it("falls back to the room's accent when the stored accent stops reading after a reset, and says so in getBrand", async () => {
    const p = await platform.person({ plan: 'pro' });
    await p.client.call('setTheme', { body: { theme: { background: '#101010', surface: '#181818' } } });
    // Light yellow reads on that dark theme...
    await p.client.call('setBrand', { body: { name: null, accent: '#ffd000' } });
    // ...and not on the room's own light palette once the theme is reset.
    const state = await p.client.call('resetTheme');
    expect(state.effective.accent).toBe(roomPalettes.light.accent);
    expect(state.fellBack).toEqual(['accent: unreadable, accent on background is 1.34:1, needs 3:1']);
    const brand = await p.client.call('getBrand');
    expect(brand.accent).toBe('#ffd000');
    expect(brand.problems?.[0]).toMatchObject({ pair: 'accent on background', token: 'accent' });
  });
});

describe('who may change them', () => {
  it('lets only owners of a team change brand, logo and theme (403 permission, action the operation); members read', async () => {
    const member = await platform.person();
    await inTeam(member, 'member');
    const tries = {
      setBrand: () => member.client.call('setBrand', { body: { name: 'X', accent: null } }),
      removeLogo: () => member.client.call('removeLogo'),
      setTheme: () => member.client.call('setTheme', { body: { theme: { radius: 'square' } } }),
      resetTheme: () => member.client.call('resetTheme'),
    };
    for (const [action, t] of Object.entries(tries)) {
      const { status, body } = await refusal(t());
      expect(status).toBe(403);
      expect(body).toMatchObject({ error: 'role cannot', reason: 'permission', action });
    }
    const put = await platform.fetch('/api/brand/logo', {
      method: 'PUT',
      token: member.token,
      body: Buffer.from('x'),
      headers: { 'content-type': 'image/png' },
    });
    expect(put.status).toBe(403);
    expect(put.body).toMatchObject({ reason: 'permission', action: 'uploadLogo' });
    expect(await member.client.call('getBrand')).toMatchObject({ workspaceName: 'Acme team', planAllows: true });
    expect((await member.client.call('getTheme')).theme).toBeNull();
    expect((await member.client.call('checkTheme', { body: { theme: { radius: 'round' } } })).effective.radius).toBe('round');

    const owner = await platform.person();
    await inTeam(owner, 'owner');
    expect(await owner.client.call('setBrand', { body: { name: 'Team brand', accent: null } })).toMatchObject({
      name: 'Team brand',
      workspaceName: 'Acme team',
    });
  });

  it('needs a session: 401 sign in first', async () => {
    for (const [method, path] of [
      ['GET', '/api/brand'],
      ['POST', '/api/brand/theme/reset'],
      ['PUT', '/api/brand/logo'],
      ['GET', '/api/brand/theme'],
    ]) {
      const res = await platform.fetch(path, { method });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'sign in first' });
    }
  });
});
