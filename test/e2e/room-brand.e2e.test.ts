import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { plainImage } from '../fixtures/images.js';
import type { Platform } from '../support/platform.js';
import { platformAndChromium } from '../support/suites.js';
import { answerWhoAreYou, deployStaticRoom } from '../support/room.js';
import { roomPalettes } from '@demo-rooms/contract';

// The brand and theme as a viewer's browser draws them: computed colours, font and corners, the
// logo and the made-with badge, on a plan with own branding and on one without.

let platform: Platform;
let browser: Browser;
platformAndChromium((p, b) => ([platform, browser] = [p, b]));

const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

async function openBrandedRoom(plan: string) {
  const person = await platform.person({ plan });
  await person.client.call('setTheme', {
    body: { theme: { background: '#fdf6e3', surface: '#fffdf7', text: '#1b1b1b', radius: 'square', font: 'serif' } },
  });
  await person.client.call('setBrand', { body: { name: 'Acme Labs', accent: '#0b6e4f' } });
  const put = await platform.fetch('/api/brand/logo', { method: 'PUT', token: person.token, body: await plainImage('png', 96, 32) });
  expect(put.status).toBe(200);
  const { project } = await deployStaticRoom(platform, person);
  const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada Prospect' } });
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  await answerWhoAreYou(page);
  return { page, context };
}

/** What the browser computed for the parts the theme reaches. */
const drawn = (page: Page) =>
  page.evaluate(() => {
    const style = (sel: string) => getComputedStyle(document.querySelector(sel)!);
    const body = style('body');
    const bar = style('.bar');
    const tab = style('.tabs button');
    return {
      background: body.backgroundColor,
      text: body.color,
      font: body.fontFamily,
      surface: bar.backgroundColor,
      radius: tab.borderTopLeftRadius,
    };
  });

describe("the brand in a viewer's browser", () => {
  it('draws the theme, the logo and the name on a plan with own branding, with no badge', async () => {
    const { page, context } = await openBrandedRoom('pro');
    expect(await drawn(page)).toEqual({
      background: rgb('#fdf6e3'),
      text: rgb('#1b1b1b'),
      surface: rgb('#fffdf7'),
      font: expect.stringMatching(/^Georgia/),
      radius: '0px',
    });
    const accent = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--accent').trim());
    expect(accent).toBe('#0b6e4f');
    expect(await page.textContent('.bar .brand-name')).toBe('Acme Labs');
    const logo = page.locator('.bar .brand img');
    await expect.poll(() => logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(96);
    expect(await page.locator('.made-with').count()).toBe(0);
    await context.close();
  });

  it("draws the room's own look and the made-with badge on a plan without, and no logo", async () => {
    const { page, context } = await openBrandedRoom('solo');
    expect(await drawn(page)).toEqual({
      background: rgb(roomPalettes.light.background),
      text: rgb(roomPalettes.light.text),
      surface: rgb(roomPalettes.light.surface),
      font: expect.stringMatching(/^system-ui/),
      radius: '6px', // .4rem of the room's 15px type
    });
    expect(await page.locator('.bar .brand').count()).toBe(0);
    const badge = page.locator('a.made-with');
    expect(await badge.textContent()).toBe('Made with Demo Rooms');
    expect(await badge.getAttribute('href')).toBe(platform.baseUrl);
    expect(await badge.isVisible()).toBe(true);
    await context.close();
  });

  it("follows a viewer's dark scheme with the room's own palettes", async () => {
    const { page, context } = await openBrandedRoom('solo');
    await page.emulateMedia({ colorScheme: 'dark' });
    expect((await drawn(page)).background).toBe(rgb(roomPalettes.dark.background));
    await context.close();
  });
});
