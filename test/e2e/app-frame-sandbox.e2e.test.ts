import { expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Platform } from '../support/platform.js';
import { platformAndChromium } from '../support/suites.js';
import { deployStaticRoom } from '../support/room.js';

// A build's code runs in the room's app frame: it must not take the viewer's tab away from the
// room (top.location), even on a click (Chromium lets an unsandboxed cross-origin frame navigate
// the top with a user gesture).

let platform: Platform;
let browser: Browser;
platformAndChromium((p, b) => ([platform, browser] = [p, b]));

it("leaves the room's tab where it is when the app assigns top.location", async () => {
  const person = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, person, {
    files: {
      'index.html': `<!doctype html><title>Busy</title><button id="go">Go</button><script src="/go.js"></script>`,
      'go.js': `document.getElementById('go').onclick = () => {
        try { top.location = location.origin + '/away.html'; } catch (e) { document.body.dataset.error = String(e); }
        document.body.dataset.tried = 'yes';
      };`,
      'away.html': '<!doctype html><title>Away</title><h1>Taken away</h1>',
    },
    manifest: { kind: 'static', name: 'Busy', output: 'dist', apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' }] },
  });
  const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });
  const page = await (await browser.newContext()).newPage();
  await page.goto(url);
  await page.fill('#who-form input[name="name"]', 'Ada');
  await page.click('#who-form button[type="submit"]');
  const handle = await page.waitForSelector('iframe[data-app="web"][src]');
  const frame = (await handle.contentFrame())!;
  await frame.waitForSelector('#go');
  const roomUrl = page.url();

  await frame.click('#go');
  await frame.waitForSelector('body[data-tried="yes"]');
  // A navigation of the top, had it been allowed, would have started by now; the room is still there.
  await page.waitForLoadState('load');
  expect(page.url()).toBe(roomUrl);
  expect(await page.locator('[role="tab"]').count()).toBe(1);
  expect(await handle.getAttribute('sandbox')).not.toContain('allow-top-navigation');
});
