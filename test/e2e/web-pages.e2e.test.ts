import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../support/platform.js';
import { deployStaticRoom, enterRoom } from '../support/room.js';
import { platformAndChromium } from '../support/suites.js';
import { DESKTOP, openArea, PHONE, seriousViolations, signedInBuilder, WIDE_PHONE, watchProblems, webContext } from '../support/web-app.js';

// Every page of the web app, with data on it, at a phone's width and a desktop's: axe-core finds
// no serious or critical violation, nothing moves once the data has come (cumulative layout
// shift under 0.1, the "good" threshold of Core Web Vitals), nothing is wider than a 360 px or
// 390 px phone (issue 47: a phone widens its layout to a page too wide, 819 px then, so the page
// must lay out within the phone's width, not merely within the window) and the page logs no error.

let platform: Platform;
let browser: Browser;
platformAndChromium((p, b) => ([platform, browser] = [p, b]));

let person: Awaited<ReturnType<typeof signedInBuilder>>['person'];
const pages: [string, string][] = [];

beforeAll(async () => {
  const signedIn = await signedInBuilder(platform, browser, { plan: 'team' });
  person = signedIn.person;
  await signedIn.context.close();
  const { project } = await deployStaticRoom(platform, person);
  const { url, link } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada Prospect' } });
  await enterRoom(platform, url, { name: 'Ada Prospect' });
  await person.client.call('createWebhookEndpoint', {
    body: { url: 'https://hooks.example.com/in', kinds: ['link.opened'], description: 'CRM' },
  });
  const p = `/projects/${project.id}`;
  pages.push(
    ['projects', '/'],
    ['builds', p],
    ['links', `${p}/links`],
    ['room', `${p}/room`],
    ['activity', `${p}/activity`],
    ['card', `${p}/card`],
    ['pipeline', '/pipeline'],
    ['analytics', '/analytics'],
    ['journey', `/journey/${link.id}`],
    ['usage', '/usage'],
    ['team', '/team'],
    ['brand', '/brand'],
    ['community', '/community'],
    ['webhooks', '/webhooks'],
    ['alerts', '/alerts'],
    ['account', '/account'],
    ['device', '/device?code=ABCD-EFGH'],
    ['missing project', '/projects/00000000-0000-4000-8000-000000000000'],
  );
});

/** A signed-in browser at `viewport` that counts layout shifts, as the browser reports them (not those right after the person's own input). */
async function contextAt(viewport: { width: number; height: number }) {
  const context = await webContext(browser, platform, person, viewport);
  await context.addInitScript(() => {
    const w = window as unknown as { __shift: number };
    w.__shift = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[])
        if (!e.hadRecentInput) w.__shift += e.value;
    }).observe({ type: 'layout-shift', buffered: true });
  });
  return context;
}

describe.each([
  ['phone', PHONE],
  ['wider phone', WIDE_PHONE],
  ['desktop', DESKTOP],
] as const)('at a %s width', (_name, viewport) => {
  it('shows every page accessibly, without layout shift or overflow', async () => {
    const context = await contextAt(viewport);
    const page = await context.newPage();
    const problems = watchProblems(page, [/404 .*\/api\/projects\/00000000-/, /the server responded with a status of 404/]);
    const found: Record<string, unknown> = {};
    for (const [name, path] of pages) {
      await openArea(page, platform.baseUrl + path);
      await page.waitForTimeout(300); // late shifts count too
      const violations = await seriousViolations(page);
      const shift = await page.evaluate(() => (window as unknown as { __shift: number }).__shift);
      const overflow = (await page.evaluate(() => document.documentElement.scrollWidth)) - viewport.width;
      const scrollers = await sidewaysScrollers(page);
      if (violations.length || shift >= 0.1 || overflow > 0 || scrollers.length) found[name] = { violations, shift, overflow, scrollers };
    }
    expect(found).toEqual({});
    expect(problems).toEqual([]);
    await context.close();
  });
});

/**
 * The boxes that scroll sideways on the page (a strip of tabs wider than the screen hides its last
 * tabs off to the side, issue 47): each as its tag and class. A table's own wrapper may scroll.
 */
function sidewaysScrollers(page: Page) {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('body *')]
      .filter((e) => /auto|scroll/.test(getComputedStyle(e).overflowX) && e.scrollWidth > e.clientWidth + 1 && !e.matches('.table-wrap'))
      .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${e.scrollWidth}>${e.clientWidth}`),
  );
}

it('shows the sign-in page accessibly to a signed-out browser at every width', async () => {
  for (const viewport of [PHONE, WIDE_PHONE, DESKTOP]) {
    const signedOut = await webContext(browser, platform, undefined, viewport);
    const page = await signedOut.newPage();
    await openArea(page, `${platform.baseUrl}/login?next=%2Fpipeline`);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    await signedOut.close();
  }
});
