import type { Browser } from 'playwright-core';
import { expect, it } from 'vitest';
import type { Platform } from '../support/platform.js';
import { platformAndChromium } from '../support/suites.js';
import { appFrame, deployStaticRoom } from '../support/room.js';

// The community in Chromium (issue 18): a listed project appears in the listings the service's
// own pages read with fetch, its public room opens without a link and shows the demo; once
// unlisted, the listing and the public room are gone; a page of another origin cannot read them.

let platform: Platform;
let browser: Browser;
platformAndChromium((p, b) => ([platform, browser] = [p, b]));

it('lists a project for anyone, opens its public room without a link, and takes both away on unlisting', async () => {
  const owner = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, owner);
  const params = { projectId: project.id };
  await owner.client.call('saveCard', { params, body: { title: 'Acme CRM', line: 'Every deal on one board.' } });
  expect((await owner.client.call('listProject', { params })).status).toBe('listed');

  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${platform.baseUrl}/login`);
  const read = () =>
    page.evaluate(
      async () => (await (await fetch('/api/community/listings', { cache: 'no-store' })).json()) as { slug: string; url: string }[],
    );
  const mine = (await read()).find((l) => l.slug === project.slug)!;
  expect(mine.url).toBe(`${platform.baseUrl}/p/${project.slug}`);

  // Without a link, without a name: the room shows the demo.
  await page.goto(mine.url);
  expect(await page.isVisible('dialog#who')).toBe(false);
  const frame = await appFrame(page, 'admin');
  expect(await frame.textContent('#admin')).toBe('Admin app');
  await expect.poll(async () => (await owner.client.call('listVisits', { params })).length).toBe(1);
  expect((await owner.client.call('listVisits', { params }))[0].viewerName).toBeNull();

  // A page of another origin (localhost is not 127.0.0.1) cannot read the listings.
  const other = await context.newPage();
  await other.goto(platform.baseUrl.replace('127.0.0.1', 'localhost') + '/login');
  const crossOrigin = await other.evaluate(async (url) => {
    try {
      await (await fetch(url)).json();
      return 'read';
    } catch {
      return 'refused';
    }
  }, `${platform.baseUrl}/api/community/listings`);
  expect(crossOrigin).toBe('refused');

  await owner.client.call('unlistProject', { params });
  await page.goto(`${platform.baseUrl}/login`);
  expect((await read()).map((l) => l.slug)).not.toContain(project.slug);
  const gone = await context.newPage();
  const answer = await gone.goto(mine.url);
  expect(answer?.status()).toBe(404);
  await context.close();
});
