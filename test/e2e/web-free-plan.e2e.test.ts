import type { Browser } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../support/platform.js';
import { deployStaticRoom } from '../support/room.js';
import { platformAndChromium } from '../support/suites.js';
import { DESKTOP, expectAccessible, openArea, signedInBuilder, WIDE_PHONE, watchProblems, webContext } from '../support/web-app.js';

// What a Free builder meets (issue 47): every page that the plan closes says so with the one
// paywall (ui/Paywall.tsx), never a red refusal, a yellow note, or a form that is refused once
// filled in; and /usage says plainly that Free runs static builds only, not "Up to 0" copies.

let platform: Platform;
let browser: Browser;
platformAndChromium((p, b) => ([platform, browser] = [p, b]));

let person: Awaited<ReturnType<typeof signedInBuilder>>['person'];
let projectPath: string;
beforeAll(async () => {
  const signedIn = await signedInBuilder(platform, browser, { plan: 'free' });
  person = signedIn.person;
  await signedIn.context.close();
  const { project } = await deployStaticRoom(platform, person);
  projectPath = `/projects/${project.id}`;
});

describe.each([
  ['desktop', DESKTOP],
  ['phone', WIDE_PHONE],
] as const)('at a %s width', (_name, viewport) => {
  it('shows the same paywall wherever the plan closes something, and no form to be refused', async () => {
    const context = await webContext(browser, platform, person, viewport);
    const page = await context.newPage();
    const problems = watchProblems(page);
    const looks = new Set<string>();
    for (const path of ['/webhooks', '/analytics', `${projectPath}/links`, `${projectPath}/room`]) {
      await openArea(page, platform.baseUrl + path);
      const paywall = page.getByTestId('paywall').first();
      await paywall.waitFor();
      expect(await paywall.textContent(), path).toMatch(/^Not on your plan\..*See your plan$/);
      looks.add(await paywall.evaluate((e) => `${getComputedStyle(e).backgroundColor} ${getComputedStyle(e).borderTopColor}`));
      expect(await page.locator('.refusal').count(), path).toBe(0);
      expect(await page.locator('.notice', { hasText: /plan/i }).count(), path).toBe(0);
      await expectAccessible(page);
    }
    expect(looks.size).toBe(1);
    // No form to fill in for nothing.
    await openArea(page, `${platform.baseUrl}/webhooks`);
    expect(await page.getByLabel('Address (https)').count()).toBe(0);
    await openArea(page, `${platform.baseUrl}${projectPath}/links`);
    expect(await page.getByLabel("Viewer's name").count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('says on /usage that Free runs static builds only, never "Up to 0" copies', async () => {
    const context = await webContext(browser, platform, person, viewport);
    const page = await context.newPage();
    await openArea(page, `${platform.baseUrl}/usage`);
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).not.toMatch(/Up to 0|each viewer gets their own copy/);
    expect(await page.getByTestId('plan-copies').textContent()).toMatch(/Static builds only: your plan runs no container copies/);
    expect(await page.getByTestId('usage-static-only').textContent()).toMatch(/your plan shows static builds only/);
    await context.close();
  });
});
