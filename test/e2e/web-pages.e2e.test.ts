import type { Browser, BrowserContext } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../support/platform.js';
import { deployStaticRoom, enterRoom } from '../support/room.js';
import { platformAndChromium } from '../support/suites.js';
import { DESKTOP, openArea, PHONE, seriousViolations, signedInBuilder, watchProblems, webContext } from '../support/web-app.js';

// Every page of the web app, with data on it, at a phone's width and a desktop's: axe-core finds
// no serious or critical violation, nothing moves once the data has come (cumulative layout
// shift under 0.1, the "good" threshold of Core Web Vitals), nothing is wider than a 360 px
// screen, and the page logs no error.

let platform: Platform;
let browser: Browser;
platformAndChromium((p, b) => ([platform, browser] = [p, b]));

let context: BrowserContext;
const pages: [string, string][] = [];

beforeAll(async () => {
  const signedIn = await signedInBuilder(platform, browser, { plan: 'team' });
  context = signedIn.context;
  const { person } = signedIn;
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
    ['account', '/account'],
    ['device', '/device?code=ABCD-EFGH'],
    ['missing project', '/projects/00000000-0000-4000-8000-000000000000'],
  );
  // Layout shifts, as the browser reports them (not those right after the person's own input).
  await context.addInitScript(() => {
    const w = window as unknown as { __shift: number };
    w.__shift = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[])
        if (!e.hadRecentInput) w.__shift += e.value;
    }).observe({ type: 'layout-shift', buffered: true });
  });
});

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
] as const)('at a %s width', (_name, viewport) => {
  it('shows every page accessibly, without layout shift or overflow', async () => {
    const page = await context.newPage();
    await page.setViewportSize(viewport);
    const problems = watchProblems(page, [/404 .*\/api\/projects\/00000000-/, /the server responded with a status of 404/]);
    const found: Record<string, unknown> = {};
    for (const [name, path] of pages) {
      await openArea(page, platform.baseUrl + path);
      await page.waitForTimeout(300); // late shifts count too
      const violations = await seriousViolations(page);
      const shift = await page.evaluate(() => (window as unknown as { __shift: number }).__shift);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      if (violations.length || shift >= 0.1 || overflow > 0) found[name] = { violations, shift, overflow };
    }
    expect(found).toEqual({});
    expect(problems).toEqual([]);
    await page.close();
  });
});

it('shows the sign-in page accessibly to a signed-out browser at both widths', async () => {
  const signedOut = await webContext(browser, platform);
  const page = await signedOut.newPage();
  for (const viewport of [PHONE, DESKTOP]) {
    await page.setViewportSize(viewport);
    await openArea(page, `${platform.baseUrl}/login?next=%2Fpipeline`);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  }
  await signedOut.close();
});
