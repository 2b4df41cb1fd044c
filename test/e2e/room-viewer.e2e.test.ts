import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Platform } from '../support/platform.js';
import { platformAndChromium } from '../support/suites.js';
import { answerWhoAreYou, appFrame, deployStaticRoom } from '../support/room.js';
import { waitFor } from '../support/wait-for.js';

// The room as a viewer sees it, in Chromium at a desktop and a 360 px phone viewport: the bar,
// the device switch, menus, the tour's Back and Next, a hash-routed step, and a state in the frame.

let platform: Platform;
let browser: Browser;
platformAndChromium((p, b) => ([platform, browser] = [p, b]));

const files = {
  // A hash-routed app (swagger-ui style): it shows the route it is at.
  'index.html': '<!doctype html><title>Home</title><h1 id="home">Home app</h1><p id="route"></p><script src="/route.js"></script>',
  'route.js':
    'const show = () => { document.getElementById("route").textContent = location.hash; }; addEventListener("hashchange", show); show();',
  'admin/index.html': '<!doctype html><title>Admin</title><h1 id="admin">Admin app</h1>',
};
const manifest = {
  kind: 'static',
  name: 'Viewer demo',
  output: 'dist',
  apps: [
    { id: 'web', name: 'Website', path: '/', device: 'laptop' },
    { id: 'admin', name: 'Admin', path: '/admin/', device: 'phone', default: true },
  ],
  story: [
    { id: 'one', title: 'The home page', say: 'Where everyone starts.', app: 'web', path: '/' },
    { id: 'two', title: 'An operation', say: 'Straight to one operation.', app: 'web', path: '/#/tag/op' },
    { id: 'three', title: 'The admin', say: 'Where the team works.', app: 'admin' },
  ],
};

async function enter(viewport: { width: number; height: number }) {
  const person = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, person, { files, manifest });
  const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada Prospect' } });
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(url);
  return { person, project, context, page };
}

const box = async (page: Page, selector: string) => (await page.locator(selector).first().boundingBox())!;

describe('the room as a viewer sees it', () => {
  it('on a desktop: says who sent the link, switches the device frame, closes the menu, and walks the tour', async () => {
    const { context, page } = await enter({ width: 1280, height: 800 });
    const said = await page.textContent('#who .who-sent');
    expect(said).toMatch(/sent you this link/);
    expect(said).toMatch(/recorded/);
    await answerWhoAreYou(page);
    await appFrame(page, 'admin');

    const phone = await box(page, '#panel-admin .frame');
    await page.click('details.device summary');
    await page.click('details.device [data-device="tablet"]');
    const tablet = await box(page, '#panel-admin .frame');
    expect(tablet.width).toBeGreaterThan(phone.width + 100);
    expect(await page.locator('details.device').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    expect(await page.locator('details.device .menu').isVisible()).toBe(false);

    await page.click('#story-toggle');
    await waitFor('step 1', async () => (await page.textContent('.step-count')) === 'Step 1 of 3');
    expect(await page.locator('.story [data-step="-1"]').isVisible()).toBe(false);
    expect(await page.locator('.story [data-step="1"]').isVisible()).toBe(true);
    const web = await appFrame(page, 'web');
    await page.click('.story [data-step="1"]');
    await waitFor(
      'the hash route',
      async () => (await page.frameLocator('iframe[data-app="web"]').locator('#route').textContent()) === '#/tag/op',
      // A loaded CI machine (load 4+, every lane at once) once took longer than 10 s here.
      20_000,
    );
    expect(await web.evaluate(() => location.hash)).toBe('#/tag/op');
    expect(await page.locator('.story [data-step="-1"]').isVisible()).toBe(true);
    await page.click('.story [data-step="1"]');
    await waitFor('step 3', async () => (await page.textContent('.step-count')) === 'Step 3 of 3');
    expect(await page.locator('.story [data-step="1"]').isVisible()).toBe(false);
    expect(await page.locator('.story [data-step="-1"]').isVisible()).toBe(true);
    await page.screenshot({ path: '/tmp/v13/desktop.png' });
    await context.close();
  });

  it('on a 360 px phone: one bar with every control in view, the app fills the width, the tour card leaves it usable', async () => {
    const { context, page } = await enter({ width: 360, height: 740 });
    await answerWhoAreYou(page);
    await appFrame(page, 'admin');
    const bar = await box(page, 'header.bar');
    expect(bar.height).toBeLessThan(56);
    // The tools fold into the Menu (room-phone.e2e.test.ts takes each of them at 390 px).
    for (const selector of ['header .project', '[role="tab"][data-tab="web"]', '[role="tab"][data-tab="admin"]', '#tools-toggle']) {
      const b = await box(page, selector);
      expect(b.x, selector).toBeGreaterThanOrEqual(0);
      expect(b.x + b.width, selector).toBeLessThanOrEqual(360);
      expect(b.y, selector).toBeGreaterThanOrEqual(bar.y);
      expect(b.y + b.height, selector).toBeLessThanOrEqual(bar.y + bar.height);
    }
    const frame = await box(page, '#panel-admin .frame');
    expect(frame.width).toBeGreaterThan(340);
    expect(frame.width).toBeLessThanOrEqual(360);

    await page.click('#tools-toggle');
    await page.click('#story-toggle');
    await waitFor('step 1', async () => (await page.textContent('.step-count')) === 'Step 1 of 3');
    const card = await box(page, '#story');
    const app = await box(page, '#panel-web .frame');
    // The card sits below the app, not over it, and the app keeps most of the screen.
    expect(app.y + app.height).toBeLessThanOrEqual(card.y + 1);
    expect(app.height).toBeGreaterThan(300);
    expect(card.y + card.height).toBeLessThanOrEqual(741);
    await page.screenshot({ path: '/tmp/v13/phone.png' });
    await context.close();
  });

  it('shows a state inside the frame in the room look, asking no origin for a stylesheet', async () => {
    const { person, project, context, page } = await enter({ width: 1280, height: 800 });
    const styles: string[] = [];
    page.on('request', (req) => {
      if (req.resourceType() === 'stylesheet') styles.push(req.url());
    });
    await answerWhoAreYou(page);
    const admin = await appFrame(page, 'admin');
    await person.client.call('pauseRoom', { params: { projectId: project.id }, body: { message: 'Back soon' } });
    // The content origin notices within its standing check; the frame is reloaded until it does.
    await waitFor(
      'the paused state',
      async () => {
        await admin.evaluate(() => location.reload());
        await admin.waitForLoadState('load');
        return (await admin.textContent('h1')) === 'Paused';
      },
      30_000,
      1000,
    );
    expect(await admin.evaluate(() => getComputedStyle(document.querySelector('.notice')!).borderRadius)).toBe('12px');
    expect(await admin.evaluate(() => getComputedStyle(document.body).fontFamily)).toMatch(/system-ui/);
    expect(styles.filter((u) => !u.startsWith(platform.baseUrl))).toEqual([]);
    await context.close();
  });
});
