import type { Browser, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { configHome, fixture, pitch, spawnPitch, type PitchEnv } from '../cli/support/pitch.js';
import type { Platform } from '../support/platform.js';
import { answerWhoAreYou, appFrame, pinAt, sendComment } from '../support/room.js';
import { platformAndChromium } from '../support/suites.js';
import { drag, signInByMailedLink, openArea, watchProblems, webContext } from '../support/web-app.js';

// Issue 21's whole journey in Debian's Chromium: a builder signs in with the emailed link,
// creates a project in the web app, approves `pitch login` on the device page and deploys with
// `pitch deploy`, makes a link; a viewer in a second browser context opens it, answers What
// happens next and pins a comment; the builder sees the visit, the answer and the comment (with
// its screenshot) appear, drags the link's card on the board, and makes the brand's accent
// unreadable (the problem is said) then readable (the room's preview shows it).

let platform: Platform;
let browser: Browser;
platformAndChromium((p, b) => ([platform, browser] = [p, b]));

/** `pitch login`, approved on the device page the tool prints, in the builder's browser. */
async function pitchLoginThrough(page: Page, env: PitchEnv) {
  const child = spawnPitch(['login'], env);
  let stderr = '';
  const verifyUrl = await new Promise<string>((resolve) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = /open (\S+\/device\?code=\S+)/.exec(stderr);
      if (url) resolve(url[1]);
    });
  });
  await page.goto(verifyUrl);
  await page.getByRole('button', { name: 'Approve' }).click();
  await expect.poll(() => page.textContent('[role=status]')).toContain('Approved');
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code, stderr).toBe(0);
}

/** On the projects page: the New project form, which goes into the project it made. */
async function createProjectInApp(page: Page, name: string, slug: string) {
  await openArea(page, `${platform.baseUrl}/`);
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Address (slug)').fill(slug);
  await page.getByRole('button', { name: 'Create project' }).click();
  await page.waitForURL(/\/projects\/[\w-]+$/);
}

/** The Links tab's New link form; the address it shows once. */
async function makeLinkInApp(page: Page, projectUrl: string, viewer: string): Promise<string> {
  await openArea(page, `${projectUrl}/links`);
  await page.getByLabel("Viewer's name").fill(viewer);
  await page.getByRole('button', { name: 'Make link' }).click();
  const address = page.getByLabel(`Address for ${viewer}`);
  await address.waitFor();
  return address.inputValue();
}

/** The Activity tab, read again until the visit, the answer and the comment (with its picture) are there. */
async function seeViewerActivity(page: Page, projectUrl: string, { viewer, comment }: { viewer: string; comment: string }) {
  await openArea(page, `${projectUrl}/activity`);
  const visits = page.getByRole('region', { name: 'Visits' });
  const responses = page.getByRole('region', { name: 'Responses' });
  const pinned = page.getByRole('listitem', { name: `Comment by ${viewer}` });
  await expect
    .poll(
      async () => {
        await page.reload();
        await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
        return [await visits.textContent(), await responses.textContent(), await pinned.count()];
      },
      { timeout: 20_000 },
    )
    .toEqual([expect.stringContaining(viewer), expect.stringMatching(/yes/i), 1]);
  expect(await pinned.textContent()).toContain(comment);
  const picture = pinned.getByRole('img', { name: new RegExp(`What ${viewer} saw`) });
  await expect.poll(() => picture.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
}

/** On the board: the link's card dragged from the Yes column to Later; the API agrees. */
async function dragCardOnBoard(page: Page, viewer: string) {
  await openArea(page, `${platform.baseUrl}/pipeline`);
  const inColumn = (stage: string) => page.getByRole('region', { name: stage }).getByRole('article', { name: new RegExp(viewer) });
  await expect.poll(() => inColumn('Yes').count()).toBe(1);
  await drag(page, inColumn('Yes').getByRole('button', { name: `Drag ${viewer}` }), page.getByRole('region', { name: 'Later' }));
  await expect.poll(() => inColumn('Later').count()).toBe(1);
  await page.reload();
  await expect.poll(() => inColumn('Later').count()).toBe(1);
}

/** Brand: an unreadable accent is said and refused; a readable one is saved and drawn by the room. */
async function brandAccent(page: Page, room: Page) {
  await openArea(page, `${platform.baseUrl}/brand`);
  const accent = page.getByLabel('Accent', { exact: true });
  const previewAccent = () => page.getByTestId('preview-accent').evaluate((el) => getComputedStyle(el).backgroundColor);
  await accent.fill('#ffff00');
  const problem = page.locator('#theme-problems li').filter({ hasText: 'Accent (#ffff00) on' }).first();
  await problem.waitFor();
  expect(await problem.textContent()).toMatch(/contrast \d+\.\d\d:1, needs \d(\.\d)?:1/);
  await accent.fill('#0b5394');
  await expect.poll(previewAccent).toBe('rgb(11, 83, 148)');
  await expect.poll(() => page.locator('#theme-problems').count()).toBe(0);
  await page.getByRole('button', { name: 'Save theme' }).click();
  await page.getByRole('button', { name: 'Save theme' }).waitFor();
  // The room itself, opened again by the viewer, draws its parts in the new accent.
  await expect
    .poll(
      async () => {
        await room.reload();
        return room.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--accent').trim().toLowerCase());
      },
      { timeout: 15_000 },
    )
    .toBe('#0b5394');
}

it("signs in, creates, deploys with pitch, links; sees the viewer's visit, answer and comment; moves the card; brands the room", async () => {
  const builder = await webContext(browser, platform);
  const page = await builder.newPage();
  const problems = watchProblems(page);

  // 1. Sign in with the emailed link.
  const email = `builder-${crypto.randomUUID()}@example.com`;
  await page.goto(`${platform.baseUrl}/`);
  await page.fill('#email', email);
  await page.click('button[type=submit]');
  await expect.poll(() => page.textContent('[role=status]')).toContain('We sent a sign-in link');
  await signInByMailedLink(page, platform, email);
  await page.waitForURL(`${platform.baseUrl}/`);
  await expect.poll(() => page.textContent('#who')).toBe(email);
  // The board and analytics are paid features: the operator puts the workspace on a plan.
  await platform.deps
    .sql`update workspaces set plan = 'team' where id = (select pw.workspace_id from personal_workspaces pw join people p on p.id = pw.person_id where p.email = ${email})`;

  // 2. Create a project in the web app.
  const slug = `journey-${crypto.randomUUID().slice(0, 8)}`;
  await createProjectInApp(page, 'Journey demo', slug);
  const projectUrl = page.url();
  expect(projectUrl).toMatch(/\/projects\/[\w-]+$/);

  // 3. Deploy through the command-line tool, signed in on the device page.
  const env: PitchEnv = { api: platform.baseUrl, configHome: await configHome() };
  await pitchLoginThrough(page, env);
  const folder = await fixture('static-site', 'Journey demo');
  const deployed = await pitch(['deploy', '--project', slug], env, folder);
  expect(deployed.code, deployed.stderr).toBe(0);
  await openArea(page, projectUrl);
  await expect.poll(() => page.locator('main').textContent(), { timeout: 20_000 }).toMatch(/live/i);

  // 4. Make a link in the web app, and read its address there.
  const linkUrl = await makeLinkInApp(page, projectUrl, 'Ada Prospect');
  expect(linkUrl).toMatch(/\/r\/pp_lnk_/);

  // 5. The viewer, in a browser of their own.
  const viewer = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const room = await viewer.newPage();
  await room.goto(linkUrl);
  await answerWhoAreYou(room, 'Ada Prospect');
  await appFrame(room, 'web');
  await room.click('#next-toggle');
  await room.locator('#next').waitFor({ state: 'visible' });
  await room.click('#next .step-answer[data-kind="yes"]');
  const ask = room.locator('dialog#email-ask');
  await ask.waitFor({ state: 'visible' });
  await room.click('#email-form .skip');
  await pinAt(room, 'web', 0.4, 0.4);
  await sendComment(room, 'Can the checkout take vouchers?');

  // 6. The builder sees the visit, the answer and the comment appear.
  await seeViewerActivity(page, projectUrl, { viewer: 'Ada Prospect', comment: 'Can the checkout take vouchers?' });

  // 7. Drag the link's card to another stage on the board.
  await dragCardOnBoard(page, 'Ada Prospect');

  // 8. Brand: an unreadable accent is refused with the problem in words; a readable one shows in the preview.
  await brandAccent(page, room);

  expect(problems).toEqual([]);
  await viewer.close();
  await builder.close();
});
