import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Platform } from '../support/platform.js';
import { platformAndChromium } from '../support/suites.js';
import { appFrame, deployStaticRoom } from '../support/room.js';
import { waitFor } from '../support/wait-for.js';

// Personalised copies for a static build (issue 34, part 3), in Chromium: a page that loads the
// room's /__pp/viewer.js shows the viewer's name and company (the attribute fill, the event and
// window.demoViewer), the room tells the viewer once that the demo is personalised for them, and
// a build that did not opt in gets no such script.

let platform: Platform;
let browser: Browser;
platformAndChromium((p, b) => ([platform, browser] = [p, b]));

const files = {
  'index.html': `<!doctype html><title>Hello</title>
<h1>Welcome, <span id="name" data-demo-viewer="name">guest</span> of <span id="company" data-demo-viewer="company">your company</span></h1>
<p id="event"></p><p id="global"></p>
<script>addEventListener('demo-viewer', (e) => { document.getElementById('event').textContent = e.detail.name; });</script>
<script src="/__pp/viewer.js"></script>
<script>document.getElementById('global').textContent = window.demoViewer ? window.demoViewer.company : 'none';</script>`,
};
const manifest = (personalise: boolean) => ({
  kind: 'static',
  name: 'Personal demo',
  output: 'dist',
  apps: [{ id: 'web', name: 'Website', path: '/', device: 'laptop' }],
  ...(personalise ? { personalise: true } : {}),
});

async function room(personalise: boolean) {
  const person = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, person, { files, manifest: manifest(personalise) });
  const { url } = await person.client.call('createLink', {
    params: { projectId: project.id },
    body: { viewerName: 'Ada', viewerCompany: 'Analytical Engines' },
  });
  return { url };
}

describe('a personalised static build', () => {
  it("shows the viewer's name and company through the room's script, and the room says so once per session", async () => {
    const { url } = await room(true);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(url);
    const dialog = page.locator('dialog#who');
    await dialog.waitFor({ state: 'visible' });
    // The prompt offers the company, started with the link's.
    expect(await page.locator('#who-form .company').isVisible()).toBe(true);
    expect(await page.inputValue('#who-form input[name="company"]')).toBe('Analytical Engines');
    await page.fill('#who-form input[name="name"]', 'Zoë Ünal');
    await page.click('#who-form button[type="submit"]');
    await dialog.waitFor({ state: 'hidden' });

    const note = page.locator('#personal-note');
    expect(await note.isVisible()).toBe(true);
    expect(await note.textContent()).toContain('personalised for you');

    const frame = await appFrame(page, 'web');
    await waitFor('the name in the page', async () => (await frame.textContent('#name')) === 'Zoë Ünal', 10_000);
    expect(await frame.textContent('#company')).toBe('Analytical Engines');
    expect(await frame.textContent('#event')).toBe('Zoë Ünal');
    expect(await frame.textContent('#global')).toBe('Analytical Engines');
    expect(await frame.evaluate(() => (window as unknown as { demoViewer: unknown }).demoViewer)).toEqual({
      name: 'Zoë Ünal',
      company: 'Analytical Engines',
    });

    // Dismissed, it stays away when the room is opened again in the same session.
    await page.click('#personal-note-dismiss');
    expect(await note.isVisible()).toBe(false);
    await page.reload();
    await appFrame(page, 'web');
    expect(await page.locator('#personal-note').isVisible()).toBe(false);
    await context.close();
  });
});

describe('a static build that did not opt in', () => {
  it('gets no viewer script, no company field and no note', async () => {
    const { url } = await room(false);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(url);
    await page.locator('dialog#who').waitFor({ state: 'visible' });
    expect(await page.locator('#who-form .company').isVisible()).toBe(false);
    await page.fill('#who-form input[name="name"]', 'Ada');
    await page.click('#who-form button[type="submit"]');
    await page.locator('dialog#who').waitFor({ state: 'hidden' });
    expect(await page.locator('#personal-note').count()).toBe(0);
    const frame = await appFrame(page, 'web');
    await waitFor('the page ran', async () => (await frame.textContent('#global')) === 'none', 10_000);
    expect(await frame.textContent('#name')).toBe('guest');
    expect(await frame.evaluate(() => fetch('/__pp/viewer.js').then((r) => r.status))).toBe(404);
    await context.close();
  });
});
