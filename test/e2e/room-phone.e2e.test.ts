import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Platform } from '../support/platform.js';
import { platformAndChromium } from '../support/suites.js';
import { answerWhoAreYou, appFrame, deployStaticRoom } from '../support/room.js';

// The room on a phone (issue 29, item 5), in Chromium at 390 × 844 with touch: every control of
// the bar in reach (the tools fold into one Menu), nothing wider than the screen whichever
// device frame an app is made for, and targets a finger can hit (44 px) on a touch screen.

let platform: Platform;
let browser: Browser;
platformAndChromium((p, b) => ([platform, browser] = [p, b]));

const devices = ['laptop', 'tablet', 'phone', 'screen', 'none'] as const;
const files = {
  'index.html': '<!doctype html><title>Home</title><h1>Home</h1>',
  ...Object.fromEntries(devices.map((d) => [`${d}/index.html`, `<!doctype html><title>${d}</title><h1>The ${d} app</h1>`])),
};
const manifest = {
  kind: 'static',
  name: 'Phone demo',
  output: 'dist',
  apps: devices.map((d) => ({ id: d, name: `On ${d}`, path: `/${d}/`, device: d })),
  story: [
    { id: 'one', title: 'First', say: 'The first step.', app: 'laptop' },
    { id: 'two', title: 'Last', say: 'The last step.', app: 'tablet' },
  ],
};

const width = 390;
const box = async (page: Page, selector: string) => (await page.locator(selector).first().boundingBox())!;
/** How far the page reaches past the screen's right edge (0: no sideways scrolling). */
const overflow = (page: Page) =>
  page.evaluate(() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - innerWidth);

function expectOnScreen(b: { x: number; y: number; width: number; height: number }, what: string) {
  expect(b.x, what).toBeGreaterThanOrEqual(0);
  expect(b.x + b.width, what).toBeLessThanOrEqual(width);
  expect(b.width, what).toBeGreaterThan(0);
}

describe('the room at 390 px on a touch screen', () => {
  it('reaches every control, fits every device frame, and gives a finger 44 px', async () => {
    const person = await platform.person({ plan: 'solo' });
    const { project } = await deployStaticRoom(platform, person, { files, manifest });
    await person.client.call('setNextSteps', { params: { projectId: project.id }, body: { steps: [{ kind: 'yes' }] } });
    const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Pat' } });
    const context = await browser.newContext({ viewport: { width, height: 844 }, hasTouch: true, isMobile: true });
    const page = await context.newPage();
    await page.goto(url);
    await answerWhoAreYou(page);
    await appFrame(page, 'laptop');

    // Each app, in the device frame it was made for: the frame fits the screen, nothing scrolls sideways.
    for (const device of devices) {
      await page.locator(`[role="tab"][data-tab="${device}"]`).tap();
      await appFrame(page, device);
      const frame = await box(page, `#panel-${device} .frame`);
      expectOnScreen(frame, `the ${device} frame`);
      expect(frame.width, `the ${device} frame`).toBeGreaterThan(width * 0.9);
      expect(await overflow(page), `with the ${device} app`).toBeLessThanOrEqual(0);
    }

    // The bar: one row, the Menu at hand; every tool inside it on screen and clickable.
    const bar = await box(page, 'header.bar');
    const toggle = await box(page, '#tools-toggle');
    expectOnScreen(toggle, 'Menu');
    expect(toggle.y + toggle.height).toBeLessThanOrEqual(bar.y + bar.height);
    const tools = ['#story-toggle', '#comment-toggle', '#next-toggle'];
    for (const selector of tools) {
      if (!(await page.locator('header.bar').evaluate((b) => b.classList.contains('tools-open'))))
        await page.locator('#tools-toggle').tap();
      const b = await box(page, selector);
      expectOnScreen(b, selector);
      expect(b.y + b.height, selector).toBeLessThanOrEqual(844);
      expect(await overflow(page), `with the menu open at ${selector}`).toBeLessThanOrEqual(0);
      // A finger's target, each way.
      expect(b.height, selector).toBeGreaterThanOrEqual(44);
      await page.locator(selector).tap();
    }
    // Each tool did its work: the tour card and the two panels are open, and none is wider than the screen.
    for (const selector of ['#story', '#next']) {
      await page.locator(selector).waitFor({ state: 'visible' });
      expectOnScreen(await box(page, selector), selector);
    }
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    // Below the app, not over it.
    const app = await box(page, '.panel:not([hidden]) .frame');
    expect((await box(page, '#next')).y).toBeGreaterThanOrEqual(app.y + app.height - 1);
    for (const selector of [
      '[role="tab"][data-tab="laptop"]',
      '#tools-toggle',
      '.story [data-step="1"]',
      '#next .step-answer',
      '#next .close',
    ]) {
      const b = await box(page, selector);
      expect(b.height, selector).toBeGreaterThanOrEqual(44);
      expect(b.width, selector).toBeGreaterThanOrEqual(44);
      // Nothing lies over it: a tap there reaches it.
      await page.locator(selector).tap({ trial: true, timeout: 5_000 });
    }
    await context.close();
  });
});
