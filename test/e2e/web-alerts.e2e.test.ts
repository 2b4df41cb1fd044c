import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fanOut } from '../../workers/events-fanout/fanout.js';
import { alertsConsumer } from '../../workers/alerts-digest/alerts.consumer.js';
import { launchChromium } from '../support/browser.js';
import { startPlatform, type Platform } from '../support/platform.js';
import { deployStaticRoom, enterRoom, hit } from '../support/room.js';
import { expectAccessible, openArea, screenshots, signedInBuilder, watchProblems } from '../support/web-app.js';

// Issue 34 in the web app: the Alerts page lists what viewers did with the unread count, in the
// nav too; marking read lowers it; the Account page sets how each kind is mailed, read back
// through the API. The fan-out runs for this test's own workspace only.

let platform: Platform;
let browser: Browser;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await platform?.close();
});

it('shows alerts with the unread count, marks them read, and sets alert mail on Account', async () => {
  const { person, context } = await signedInBuilder(platform, browser, { plan: 'solo' });
  const { project } = await deployStaticRoom(platform, person);
  const { url, link } = await person.client.call('createLink', {
    params: { projectId: project.id },
    body: { viewerName: 'Grace Prospect' },
  });
  const [{ workspaceId }] = await platform.deps.sql<{ workspaceId: string }[]>`select workspace_id from projects where id = ${project.id}`;
  const room = await enterRoom(platform, url, { name: 'Ada Viewer' });
  await hit(platform, `${room.base}/comments`, {
    method: 'POST',
    jar: room.jar,
    json: {
      appId: 'web',
      screen: '/',
      body: 'Love it',
      position: { x: 0.5, y: 0.5 },
      area: null,
      device: 'laptop',
      screenshot: null,
      screenshotNote: 'no-answer',
    },
  });
  const { config, sql, storage, log } = platform.deps;
  await fanOut({ config, sql, storage, log }, { consumers: [alertsConsumer], workspaceIds: [workspaceId] });

  const page = await context.newPage();
  const problems = watchProblems(page);
  await openArea(page, `${platform.baseUrl}/alerts`);
  await expect.poll(() => page.textContent('[data-testid="alerts-unread"]')).toBe('2 unread');
  await expect.poll(() => page.textContent('[data-testid="nav-unread"]')).toBe('2');
  const items = page.locator('ul.alerts li');
  await expect.poll(() => items.count()).toBe(2);
  expect(await items.first().textContent()).toContain('Ada Viewer left a comment: “Love it”');
  expect(await items.first().locator('a').getAttribute('href')).toBe(`/journey/${link.id}`);
  await expectAccessible(page);
  await screenshots(page, 'web-alerts');

  await items.first().getByRole('button', { name: 'Mark read' }).click();
  await expect.poll(() => page.textContent('[data-testid="alerts-unread"]')).toBe('1 unread');
  await expect.poll(() => page.textContent('[data-testid="nav-unread"]')).toBe('1');
  expect((await person.client.call('listAlerts', {})).unread).toBe(1);

  await openArea(page, `${platform.baseUrl}/account`);
  await page.getByLabel('A viewer leaves a comment').selectOption('digest');
  await expect.poll(async () => (await person.client.call('alertSettings', {}))['comment.left']).toBe('digest');
  await page.getByLabel('A viewer opens a room for the first time').selectOption('off');
  await expect.poll(async () => (await person.client.call('alertSettings', {}))['link.opened']).toBe('off');
  await expectAccessible(page);
  expect(problems).toEqual([]);
});
