import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.js';
import { parseCsv } from '../support/csv.js';
import { startPlatform, type Platform } from '../support/platform.js';
import { pastMonth, seedCopy, seedProject, seedVisit, workspaceOf } from '../support/usage-seed.js';
import { expectAccessible, openArea, screenshots, signedInBuilder, watchProblems } from '../support/web-app.js';

// Issue 46 in the web app: the Usage page shows a month's statement, picked by month, with the
// very numbers of GET /api/usage/statements/{month}, per project and per copy, and its CSV link
// downloads the same lines.

let platform: Platform;
let browser: Browser;
beforeAll(async () => {
  platform = await startPlatform();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await platform?.close();
});

const h = 3600_000;

it("shows the month's statement with the API's numbers, and its CSV has the same lines", async () => {
  const { person, context } = await signedInBuilder(platform, browser, { plan: 'pro' });
  const { sql } = platform.deps;
  const workspaceId = await workspaceOf(sql, person.email);
  const m = pastMonth(6, 3);
  const shop = await seedProject(sql, workspaceId, 'Shop demo');
  const crm = await seedProject(sql, workspaceId, 'CRM, "beta"');
  await seedCopy(sql, workspaceId, shop, [
    ['start', m.at(2 * h)],
    ['pause', m.at(3 * h)],
    ['resume', m.at(3.5 * h)],
    ['stop', m.at(4 * h + 1234)],
  ]);
  await seedCopy(sql, workspaceId, crm, [
    ['start', m.at(30 * h)],
    ['stop', m.at(30 * h + 754_321)],
  ]);
  await seedCopy(sql, workspaceId, crm, [
    ['start', m.at(31 * h)],
    ['fail', m.at(31 * h + 20_000)],
  ]);
  await seedVisit(sql, workspaceId, shop, m.at(2 * h), m.at(2.75 * h));
  const statement = await person.client.call('usageStatement', { params: { month: m.name } });
  expect(statement.lineCount).toBe(3);

  const page = await context.newPage();
  const problems = watchProblems(page);
  await openArea(page, `${platform.baseUrl}/usage`);
  await page.getByLabel('Month (UTC)').fill(m.name);
  await page.getByText(`${m.name} Open`).waitFor();
  const figure = (id: string) => page.textContent(`[data-testid="statement-${id}"]`);
  expect(await figure('container-seconds')).toBe(String(statement.containerSeconds));
  expect(await figure('container-hours')).toBe(String(statement.containerHours));
  expect(await figure('spend')).toBe(String(statement.spendUsd));
  expect(await figure('correction-seconds')).toBe('0');
  expect(await figure('viewer-hours')).toBe(String(statement.viewerHours));
  const cells = (table: string) =>
    page
      .getByRole('table', { name: table })
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent ?? '')));
  expect(await cells('Statement by project')).toEqual(
    statement.projects.map((p) => [p.name, p.copies, p.containerSeconds, p.containerHours, p.correctionSeconds, p.viewerHours].map(String)),
  );
  const names = new Map(statement.projects.map((p) => [p.projectId, p.name]));
  expect(await cells('Statement by copy')).toEqual(
    statement.lines.map((l) => [l.copyId, names.get(l.projectId)!, l.startedAt, l.endedAt!, String(l.seconds), '']),
  );
  await expectAccessible(page);
  await screenshots(page, 'web-usage-statement');

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
  expect(download.suggestedFilename()).toBe(`usage-${m.name}.csv`);
  const [header, ...rows] = parseCsv(await readFile((await download.path())!, 'utf8'));
  expect(header).toEqual(['project_id', 'project', 'copy_id', 'kind', 'corrects_month', 'started_at', 'ended_at', 'seconds', 'event_seqs']);
  expect(rows.map((r) => [r[2], r[1], r[5], r[6], r[7]])).toEqual(
    statement.lines.map((l) => [l.copyId, names.get(l.projectId), l.startedAt, l.endedAt, String(l.seconds)]),
  );
  // The page's per-project seconds are the CSV's lines summed.
  for (const p of statement.projects) {
    const sum = rows.filter((r) => r[0] === p.projectId).reduce((a, r) => a + Number(r[7]), 0);
    expect(sum).toBeCloseTo(p.containerSeconds, 3);
  }
  expect(problems).toEqual([]);
});
