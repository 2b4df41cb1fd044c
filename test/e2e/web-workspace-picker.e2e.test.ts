import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Platform } from '../support/platform.js';
import { platformAndChromium } from '../support/suites.js';
import { DESKTOP, openArea, signedInBuilder, WIDE_PHONE, webContext } from '../support/web-app.js';

// Issue 47, item 9: the workspace picker cut a team's name and the person's role short (squeezed
// between the wordmark and the email). The text of the chosen workspace must fit the select's
// box, less its padding and the arrow, at a desktop's width and a phone's.

let platform: Platform;
let browser: Browser;
platformAndChromium((p, b) => ([platform, browser] = [p, b]));

const ARROW = 24; // px: Chromium's drop-down arrow with its margin

describe.each([
  ['desktop', DESKTOP],
  ['phone', WIDE_PHONE],
] as const)('at a %s width', (_name, viewport) => {
  it("shows a team's whole name and the person's role in the workspace picker", async () => {
    const { person, context: first } = await signedInBuilder(platform, browser);
    await first.close();
    const team = await person.client.call('createTeam', { body: { name: 'Northwind Field Sales Europe' } });
    await person.client.call('activateWorkspace', { params: { workspaceId: team.id } });
    const context = await webContext(browser, platform, person, viewport);
    const page = await context.newPage();
    await openArea(page, `${platform.baseUrl}/`);
    const picker = page.getByRole('combobox', { name: 'Workspace' });
    await expect
      .poll(() => picker.evaluate((s: HTMLSelectElement) => s.selectedOptions[0]?.text))
      .toBe('Northwind Field Sales Europe · owner');
    const fit = await picker.evaluate((s: HTMLSelectElement, arrow) => {
      const style = getComputedStyle(s);
      const measure = document.createElement('canvas').getContext('2d')!;
      measure.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const text = measure.measureText(s.selectedOptions[0].text).width;
      const room = s.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight) - arrow;
      return { text: Math.ceil(text), room: Math.floor(room) };
    }, ARROW);
    expect(fit.text).toBeLessThanOrEqual(fit.room);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    await context.close();
  });
});
