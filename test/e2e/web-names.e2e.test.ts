import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { recordEvents } from '../../services/data/room-events.sql.js';
import type { Platform } from '../support/platform.js';
import { deployStaticRoom } from '../support/room.js';
import { platformAndChromium } from '../support/suites.js';
import { openArea, screenshots, signedInBuilder, watchProblems } from '../support/web-app.js';

// Issue 29, item 7: the web app shows what the builder called things (app names, page titles,
// step titles, projects), never raw ids, in visits, the journey, analytics and usage; the Views
// line stays visible when Viewers equals it; the median cold start shows once copies started.

let platform: Platform;
let browser: Browser;
platformAndChromium((p, b) => ([platform, browser] = [p, b]));

const manifest = {
  kind: 'static',
  name: 'Named room',
  output: 'dist',
  apps: [{ id: 'web', name: 'Storefront', path: '/', device: 'laptop' }],
  story: [{ id: 'intro', title: 'Meet the shop', say: 'Here it is.', app: 'web' }],
};

/** How many pixels of the chart's canvas are near `rgb` (uPlot draws each series in its colour). */
const pixelsNear = (page: Page, caption: string, [r, g, b]: number[]) =>
  page.evaluate(
    ({ caption, r, g, b }) => {
      const figure = [...document.querySelectorAll('figure.chart')].find((f) => f.querySelector('figcaption')?.textContent === caption)!;
      const canvas = figure.querySelector('canvas')!;
      const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let n = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3] > 200 && Math.abs(data[i] - r) < 40 && Math.abs(data[i + 1] - g) < 40 && Math.abs(data[i + 2] - b) < 40) n++;
      }
      return n;
    },
    { caption, r, g, b },
  );

it('shows names, not ids, in visits, journey, analytics and usage, and both the Views and Viewers lines', async () => {
  const { person, context } = await signedInBuilder(platform, browser, { plan: 'team' });
  const { project } = await deployStaticRoom(platform, person, { manifest });
  const page = await person.client.call('addPage', {
    params: { projectId: project.id },
    body: { title: 'Price list', kind: 'markdown', content: '# Prices' },
  });
  const { link } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada Buyer' } });
  const [{ workspaceId }] = await platform.deps.sql<{ workspaceId: string }[]>`select workspace_id from projects where id = ${project.id}`;

  // What a viewer's visit leaves, written as the room writes it: the visit's seconds and the events.
  await platform.deps.sql`
    insert into visits (workspace_id, project_id, link_id, viewer_name, time)
    values (${workspaceId}, ${project.id}, ${link.id}, 'Ada Buyer', ${platform.deps.sql.json({ web: 95, [page.id]: 40 })})`;
  await recordEvents(
    platform.deps.sql,
    { workspaceId, projectId: project.id, linkId: link.id, sessionId: randomUUID(), visitId: null, device: 'desktop' },
    [
      { kind: 'entry' },
      { kind: 'time', subject: 'web', seconds: 95 },
      { kind: 'step', subject: 'intro' },
      { kind: 'time', subject: page.id, seconds: 40 },
    ],
  );
  // Two copies of a container build ran this month, as the runner records them.
  for (const cold of [1200, 1800]) {
    const copyId = randomUUID();
    const at = new Date(Date.now() - 60_000);
    await platform.deps.sql`
      insert into runner_copies (id, runner_id, workspace_id, project_id, build_id, origin, state, asked_at, ended_at, seq)
      values (${copyId}, 'names-test', ${workspaceId}, ${project.id}, ${randomUUID()}, 'warm', 'ended', ${at}, now(), 3)`;
    for (const [seq, kind] of [
      [1, 'start'],
      [2, 'ready'],
      [3, 'stop'],
    ] as const) {
      await platform.deps.sql`
        insert into copy_events (copy_id, seq, workspace_id, project_id, build_id, kind, at, cold_start_ms)
        values (${copyId}, ${seq}, ${workspaceId}, ${project.id}, ${randomUUID()}, ${kind}, ${seq === 3 ? new Date() : at}, ${kind === 'ready' ? cold : null})`;
    }
  }

  const tab = await context.newPage();
  const problems = watchProblems(tab);
  const noIds = async () => {
    const text = await tab.locator('main').innerText();
    expect(text).not.toContain(page.id);
    expect(text).not.toContain(project.id);
  };

  // Visits: where the time went, by app name and page title.
  await openArea(tab, `${platform.baseUrl}/projects/${project.id}/activity`);
  const where = tab.locator('td[data-label="Where"]');
  await expect.poll(() => where.textContent()).toMatch(/Storefront .*Price list/);
  await noIds();

  // The journey: the step by its title, the page by its title.
  await openArea(tab, `${platform.baseUrl}/journey/${link.id}`);
  const timeline = tab.getByRole('list', { name: 'Timeline of session 1' });
  await expect.poll(() => timeline.innerText()).toContain('Took the story step “Meet the shop”');
  expect(await timeline.innerText()).toContain('on Price list');
  expect(await timeline.innerText()).toContain('on Storefront');
  await noIds();

  // Workspace analytics: each app under its project's name; Views and Viewers (equal here) both drawn.
  await openArea(tab, `${platform.baseUrl}/analytics`);
  const apps = tab.locator('figure.chart', { hasText: 'Time per app per day' });
  await apps.locator('summary').click();
  const headers = await apps.locator('thead th').allInnerTexts();
  expect(headers).toEqual(expect.arrayContaining(['Room demo · Storefront', 'Room demo · Price list']));
  await noIds();
  const views = tab.locator('figure.chart', { hasText: 'Views and viewers per day' });
  await views.locator('summary').click();
  const today = new Date().toISOString().slice(0, 10);
  expect(await views.locator('tbody tr', { hasText: today }).locator('td').allInnerTexts()).toEqual(['1', '1']);
  // Views is #1d4ed8 and drawn first; before, Viewers (#b42318) covered it wherever the two were equal.
  expect(await pixelsNear(tab, 'Views and viewers per day', [0x1d, 0x4e, 0xd8])).toBeGreaterThan(100);
  expect(await pixelsNear(tab, 'Views and viewers per day', [0xb4, 0x23, 0x18])).toBeGreaterThan(100);
  await screenshots(tab, 'analytics-names');

  // Usage: the median cold start of the copies that started, and the project by name.
  await openArea(tab, `${platform.baseUrl}/usage`);
  const cold = tab.locator('.total', { hasText: 'Median cold start' }).locator('.n');
  await expect.poll(() => cold.textContent()).toBe('1.5 s');
  const row = tab.getByRole('region', { name: 'By project' }).locator('tbody tr');
  expect(await row.locator('td').allInnerTexts()).toEqual(['Room demo', '2', '0.0', '1.5 s', '0', '0']);
  await noIds();
  expect(problems).toEqual([]);
});
