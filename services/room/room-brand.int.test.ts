import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plainImage } from '../../test/fixtures/images.js';
import { startPlatform, type Platform } from '../../test/support/platform.js';
import { deployStaticRoom, hit, shellData } from '../../test/support/room.js';
import { roomPalettes } from '@demo-rooms/contract';

// The brand and theme in the room's page, and the logo at the room's own address.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

async function brandedRoom(plan: string) {
  const person = await platform.person({ plan });
  // The theme first: alone, this green is too dark for the room's own dark palette.
  await person.client.call('setTheme', { body: { theme: { background: '#fdf6e3', text: '#1b1b1b', radius: 'square', font: 'serif' } } });
  await person.client.call('setBrand', { body: { name: 'Acme Labs', accent: '#0b6e4f' } });
  const put = await platform.fetch('/api/brand/logo', { method: 'PUT', token: person.token, body: await plainImage('png', 96, 32) });
  const { project } = await deployStaticRoom(platform, person);
  const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Lee' } });
  const jar = new Map<string, string>();
  const page = await hit(platform, new URL(url).pathname, { jar });
  return { person, page, jar, sessionId: shellData(page.text).sessionId as string, logo: put.body.logo };
}

describe('the room with a brand', () => {
  it('draws the theme, the brand name and the logo on a plan with own branding, and no badge', async () => {
    const { page, jar, sessionId, logo } = await brandedRoom('pro');
    expect(page.text).toContain('--background:#fdf6e3');
    expect(page.text).toContain('--accent:#0b6e4f');
    expect(page.text).toContain('color-scheme:light;');
    expect(page.text).toContain('<span class="brand-name">Acme Labs</span>');
    expect(page.text).toContain(`src="/room/${sessionId}/logo?v=`);
    expect(page.text).not.toContain('made-with');

    const got = await hit(platform, `/room/${sessionId}/logo`, { jar });
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toBe('image/png');
    expect(got.headers.etag).toBe(logo.etag);
    expect((await hit(platform, `/room/${sessionId}/logo`, { jar, headers: { 'if-none-match': logo.etag } })).status).toBe(304);
    // Without the session's cookie there is nothing there.
    expect((await hit(platform, `/room/${sessionId}/logo`, { jar: new Map() })).status).toBe(404);
  });

  it("keeps the brand but draws the room's own look and the made-with badge on a plan without own branding", async () => {
    const { page, jar, sessionId } = await brandedRoom('solo');
    expect(page.text).toContain(`--background:${roomPalettes.light.background}`);
    expect(page.text).toContain('color-scheme:light dark;');
    expect(page.text).toContain('prefers-color-scheme: dark');
    expect(page.text).not.toContain('Acme Labs');
    expect(page.text).toMatch(
      /<a class="made-with" href="http:\/\/127\.0\.0\.1:\d+" target="_blank" rel="noopener">Made with Demo Rooms<\/a>/,
    );
    expect((await hit(platform, `/room/${sessionId}/logo`, { jar })).status).toBe(404);
  });
});
