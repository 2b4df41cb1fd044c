import type { Browser } from 'playwright-core';
import { expect, it } from 'vitest';
import type { Platform } from '../support/platform.js';
import { answerWhoAreYou, appFrame, deployStaticRoom, pinAt, shopRoom } from '../support/room.js';
import { platformAndChromium } from '../support/suites.js';
import { drag, expectAccessible, openArea, screenshots, signedInBuilder, watchProblems } from '../support/web-app.js';

// The builder's view of what viewers did: a viewer opens a link in Chromium, answers and pins a
// comment; the builder reads the activity tab, replies, drags the link's card across the pipeline
// with the mouse, sets its outcome and a note, and reads the analytics, the journey and the usage.

let platform: Platform;
let browser: Browser;
// The shell flushes its time every half second: a viewer's first beat lands soon after the app shows.
platformAndChromium((p, b) => ([platform, browser] = [p, b]), { SHELL_FLUSH_MS: '500' });

/** A viewer in their own browser: gives their name, takes the story to its end, answers yes, pins a comment. */
async function viewerVisits(url: string, name: string) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  await page.goto(url);
  await answerWhoAreYou(page, name);
  const beat = page.waitForResponse(
    (res) =>
      /\/room\/[^/]+\/beat$/.test(res.url()) && res.status() === 200 && (JSON.parse(res.request().postData() ?? '{}').time?.web ?? 0) >= 1,
    { timeout: 30_000 },
  );
  await appFrame(page, 'web');
  // Time on the app, credited by a beat, before the story moves on.
  await beat;
  await page.click('#story-toggle');
  await page.click('.story [data-step="1"]');
  await page.click('.story .offer-open');
  await page.locator('#next').waitFor({ state: 'visible' });
  await page.click('#next .step-answer[data-kind="yes"]');
  await page.locator('dialog#email-ask').waitFor({ state: 'visible' });
  await page.click('#email-form .skip');
  await page.locator('dialog#email-ask').waitFor({ state: 'hidden' });
  await pinAt(page, 'web', 0.3, 0.4);
  await page.fill('#comment-form textarea[name="body"]', 'Make this heading bigger');
  await page.click('#comment-form button[type="submit"]');
  await expect.poll(() => page.locator('.comment-outcome').textContent(), { timeout: 20_000 }).toBe('Sent. Thank you.');
  await page.close({ runBeforeUnload: true });
  await context.close();
}

it("shows a viewer's visit, answer and comment; the builder replies, moves the card, sets an outcome and a note, and reads analytics, journey and usage", async () => {
  const { person, context } = await signedInBuilder(platform, browser, { plan: 'team' });
  const { project } = await deployStaticRoom(platform, person, shopRoom);
  const { url, link } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada Buyer' } });
  await viewerVisits(url, 'Ada Buyer');
  await expect
    .poll(async () => (await person.client.call('listComments', { params: { projectId: project.id } })).length, { timeout: 20_000 })
    .toBe(1);
  await expect.poll(async () => (await person.client.call('listVisits', { params: { projectId: project.id } })).length).toBe(1);

  const page = await context.newPage();
  // The reversed range is refused on purpose.
  const problems = watchProblems(page, [/422 .*\/analytics\//, /status of 422/]);

  // The activity tab: the comment with its picture, the answer, the visit; a reply.
  await openArea(page, `${platform.baseUrl}/projects/${project.id}/activity`);
  const comment = page.getByRole('listitem', { name: 'Comment by Ada Buyer' });
  await expect.poll(() => comment.locator('blockquote').textContent()).toBe('Make this heading bigger');
  const [stored] = await person.client.call('listComments', { params: { projectId: project.id } });
  const shot = comment.getByRole('img', { name: /What Ada Buyer saw/ });
  if (stored.hasScreenshot) {
    await expect.poll(() => shot.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  } else {
    expect(await comment.textContent()).toMatch(/No screenshot/);
  }
  expect(await page.getByRole('region', { name: 'Responses' }).textContent()).toContain('yes');
  expect(await page.getByRole('region', { name: 'Visits' }).textContent()).toContain('Ada Buyer');
  await comment.getByLabel('Your reply').fill('Done in the next build.');
  await comment.getByRole('button', { name: 'Reply', exact: true }).click();
  await expect
    .poll(async () => (await person.client.call('listFeedback', { params: { projectId: project.id } }))[0].reply)
    .toBe('Done in the next build.');
  await expect.poll(() => comment.getByRole('list', { name: 'Replies' }).textContent()).toContain('Done in the next build.');
  await expectAccessible(page);
  await screenshots(page, 'activity');
  // Resolved, and its picture removed for good after a confirmation.
  await comment.getByRole('button', { name: 'Resolve' }).click();
  await expect
    .poll(async () => (await person.client.call('listComments', { params: { projectId: project.id } }))[0].resolvedAt)
    .not.toBeNull();
  await expect.poll(() => comment.textContent()).toContain('Resolved');
  if (stored.hasScreenshot) {
    await comment.getByRole('button', { name: 'Remove screenshot' }).click();
    await page.getByRole('dialog', { name: 'Remove this screenshot?' }).getByRole('button', { name: 'Remove for good' }).click();
    await expect
      .poll(async () => (await person.client.call('getFeedback', { params: { commentId: stored.id } })).screenshotNote)
      .toBe('removed');
    await expect.poll(() => comment.textContent()).toContain('The screenshot was removed.');
  }

  // The pipeline: the card in the Yes column, dragged with the mouse to Later.
  await openArea(page, `${platform.baseUrl}/pipeline`);
  const card = page.getByRole('article', { name: /Ada Buyer/ });
  await expect
    .poll(() =>
      page
        .getByRole('region', { name: 'Yes' })
        .getByRole('article', { name: /Ada Buyer/ })
        .count(),
    )
    .toBe(1);
  await expectAccessible(page);
  await drag(page, card.getByRole('button', { name: 'Drag Ada Buyer' }), page.getByRole('region', { name: 'Later' }));
  await expect.poll(async () => (await person.client.call('board')).find((c) => c.id === link.id)?.stage).toBe('later');
  await expect
    .poll(() =>
      page
        .getByRole('region', { name: 'Later' })
        .getByRole('article', { name: /Ada Buyer/ })
        .count(),
    )
    .toBe(1);
  expect((await person.client.call('projectBoard', { params: { projectId: project.id } }))[0]).toMatchObject({
    stage: 'later',
    suggested: 'yes',
    placed: true,
  });
  await expect.poll(() => card.textContent()).toContain('Evidence: Yes');

  // The card's panel: an outcome and a note.
  await card.getByRole('button', { name: 'Ada Buyer', exact: true }).click();
  const panel = page.getByRole('dialog', { name: 'Ada Buyer' });
  await panel.getByLabel('Outcome').selectOption('won');
  await panel.getByRole('button', { name: 'Save outcome' }).click();
  await expect.poll(async () => (await person.client.call('board')).find((c) => c.id === link.id)?.outcome).toBe('won');
  await panel.getByLabel('New note').fill('Call on Monday about pricing');
  await panel.getByRole('button', { name: 'Add note' }).click();
  await expect
    .poll(async () => (await person.client.call('listNotes', { params: { linkId: link.id } })).map((n) => n.body))
    .toEqual(['Call on Monday about pricing']);
  await expect.poll(() => panel.textContent()).toContain('Call on Monday about pricing');
  await expectAccessible(page);
  await page.keyboard.press('Escape');
  await expect.poll(() => card.textContent()).toContain('Won');
  // Without a mouse: the card's Move to list.
  await card.getByLabel('Move to').selectOption('engaged');
  await expect.poll(async () => (await person.client.call('board')).find((c) => c.id === link.id)?.stage).toBe('engaged');
  await expect
    .poll(() =>
      page
        .getByRole('region', { name: 'Engaged' })
        .getByRole('article', { name: /Ada Buyer/ })
        .count(),
    )
    .toBe(1);
  await screenshots(page, 'pipeline');

  // Analytics: charts (canvases), totals, and a reversed range refused beside the inputs.
  await openArea(page, `${platform.baseUrl}/analytics`);
  await expect.poll(() => page.locator('figure.chart canvas').count()).toBeGreaterThan(0);
  await expect.poll(() => page.locator('.totals').textContent()).toMatch(/\d+Views/);
  await expectAccessible(page);
  await screenshots(page, 'analytics');
  await page.getByLabel('Project', { exact: true }).selectOption({ label: 'Room demo' });
  await expect.poll(() => page.locator('figure.chart canvas').count()).toBeGreaterThan(0);
  await expect.poll(() => page.getByRole('region', { name: 'By project' }).count()).toBe(0);
  await page.getByLabel('From').fill('2026-02-10');
  await page.getByLabel('To').fill('2026-02-01');
  await expect.poll(() => page.getByRole('alert').first().textContent()).toBeTruthy();
  await page.getByRole('button', { name: '30 days' }).click();
  await expect.poll(() => page.getByRole('alert').count()).toBe(0);

  // The journey of the link.
  await openArea(page, `${platform.baseUrl}/journey/${link.id}`);
  await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Journey of Ada Buyer');
  await expect.poll(() => page.getByRole('list', { name: 'Timeline of session 1' }).textContent()).toContain('Entered the room');
  await expectAccessible(page);
  await screenshots(page, 'journey');

  // Container usage: a static-only workspace ran none.
  await openArea(page, `${platform.baseUrl}/usage`);
  await expect.poll(() => page.locator('main').textContent()).toContain('No containers ran');
  await expectAccessible(page);
  await screenshots(page, 'usage');

  expect(problems).toEqual([]);
  await context.close();
});

it("says what to do first when nothing happened yet, and shows the Free plan's refusal of the pipeline in words", async () => {
  const { person, context } = await signedInBuilder(platform, browser, { plan: 'team' });
  const project = await person.client.call('createProject', { body: { slug: `empty-${Date.now().toString(36)}`, name: 'Quiet' } });
  const page = await context.newPage();
  const problems = watchProblems(page);
  await openArea(page, `${platform.baseUrl}/projects/${project.id}/activity`);
  await expect.poll(() => page.getByRole('region', { name: 'Comments' }).textContent()).toContain('Comment button');
  await expectAccessible(page);
  await openArea(page, `${platform.baseUrl}/pipeline`);
  await expect.poll(() => page.locator('main').textContent()).toContain('No links yet');
  await expectAccessible(page);
  expect(problems).toEqual([]);
  await context.close();

  const free = await signedInBuilder(platform, browser, { plan: 'free' });
  const freePage = await free.context.newPage();
  const freeProblems = watchProblems(freePage, [/402 /]);
  await openArea(freePage, `${platform.baseUrl}/pipeline`);
  await expect.poll(() => freePage.getByRole('alert').textContent()).toMatch(/plan/i);
  await openArea(freePage, `${platform.baseUrl}/analytics`);
  await expect.poll(() => freePage.getByTestId('paywall').textContent()).toMatch(/^Not on your plan\. Charts, viewers/);
  await expectAccessible(freePage);
  expect(freeProblems).toEqual([]);
  await free.context.close();
});

it("keeps long names inside the pipeline cards, wrapped, with the full name still the card's (issue 29)", async () => {
  const { person, context } = await signedInBuilder(platform, browser, { plan: 'team' });
  const projectName = `Quarterly${'Forecasting'.repeat(6)}Workbench`.slice(0, 80);
  const viewerName = `Bartholomew${'Featherstonehaugh'.repeat(5)}`.slice(0, 80);
  const project = await person.client.call('createProject', { body: { slug: `long-${Date.now().toString(36)}`, name: projectName } });
  await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName } });
  const page = await context.newPage();
  const problems = watchProblems(page);
  await openArea(page, `${platform.baseUrl}/pipeline`);
  const card = page.getByRole('article', { name: `${viewerName}, ${projectName}` });
  await card.waitFor();
  // Whatever overflows its card at a phone's or a desktop's width: the card itself, or any part of it.
  const overflowing = () =>
    card.evaluate((el) => {
      const box = el.getBoundingClientRect();
      const out = [...el.querySelectorAll('*')]
        .filter((c) => c.getBoundingClientRect().right > box.right + 0.5)
        .map((c) => c.outerHTML.slice(0, 60));
      return el.scrollWidth > el.clientWidth ? ['the card scrolls', ...out] : out;
    });
  for (const viewport of [
    { width: 360, height: 740 },
    { width: 1280, height: 800 },
  ]) {
    await page.setViewportSize(viewport);
    await expect.poll(overflowing).toEqual([]);
  }
  // The full names stay the card's: its open button's accessible name and title, the project's title.
  const open = card.getByRole('button', { name: viewerName, exact: true });
  expect(await open.getAttribute('title')).toBe(viewerName);
  expect(await card.getByTitle(projectName).count()).toBe(1);
  await expectAccessible(page);
  await screenshots(page, 'pipeline-long-names');
  expect(problems).toEqual([]);
  await context.close();
});
