import type { Browser } from 'playwright-core';
import { expect, it } from 'vitest';
import type { Platform } from '../support/platform.js';
import { answerWhoAreYou, appFrame, deployStaticRoom } from '../support/room.js';
import { platformAndChromium } from '../support/suites.js';

// A story step's `point`: the element is ringed inside the app's frame (through the helper the
// content origin adds to the build's pages), and the tour card moves out of its way.

let platform: Platform;
let browser: Browser;
platformAndChromium((p, b) => ([platform, browser] = [p, b]));

it('rings the element a step points at, and keeps the tour card off it', async () => {
  const person = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, person, {
    files: {
      // The button sits where the tour card would: bottom right.
      'index.html':
        '<!doctype html><html><head><title>Shop</title></head><body style="margin:0;height:100vh"><h1 id="title">Shop</h1><button id="buy" style="position:fixed;right:16px;bottom:16px;width:320px;height:90px">Buy</button></body></html>',
    },
    manifest: {
      kind: 'static',
      name: 'Ring demo',
      output: 'dist',
      apps: [{ id: 'web', name: 'Shop', path: '/', device: 'none' }],
      story: [
        { id: 'look', title: 'The shop', say: 'Here it is.', app: 'web', point: '#title' },
        { id: 'buy', title: 'Buy', say: 'Press the button.', app: 'web', point: '#buy' },
      ],
    },
  });
  const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ringo' } });
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  await page.goto(url);
  await answerWhoAreYou(page);
  const frame = await appFrame(page, 'web');
  // The content origin served the page with the helper, under the document's own doctype.
  expect(await frame.evaluate(() => document.compatMode)).toBe('CSS1Compat');

  await page.click('#story-toggle');
  const ringAround = async (selector: string) => {
    await frame.waitForSelector('[data-pp-ring]', { state: 'attached' });
    return frame.evaluate((sel) => {
      const ring = document.querySelector('[data-pp-ring]')!.getBoundingClientRect();
      const el = document.querySelector(sel)!.getBoundingClientRect();
      return ring.left <= el.left && ring.top <= el.top && ring.right >= el.right && ring.bottom >= el.bottom;
    }, selector);
  };
  await expect.poll(() => ringAround('#title')).toBe(true);

  await page.click('.story [data-step="1"]');
  await expect.poll(() => ringAround('#buy')).toBe(true);
  expect(await frame.locator('[data-pp-ring]').count()).toBe(1);
  // The card does not cover the button it points at.
  await expect
    .poll(async () => {
      const card = (await page.locator('#story').boundingBox())!;
      const button = (await frame.locator('#buy').boundingBox())!; // in the page's coordinates
      return (
        card.x < button.x + button.width &&
        card.x + card.width > button.x &&
        card.y < button.y + button.height &&
        card.y + card.height > button.y
      );
    })
    .toBe(false);
  await page.context().close();
});
