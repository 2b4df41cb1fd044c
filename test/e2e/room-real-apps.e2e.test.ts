import { describe, expect, it } from 'vitest';
import type { Browser, Frame, Page } from 'playwright-core';
import { demoBundle } from '../support/runner/demo-bundle.js';
import type { Platform } from '../support/platform.js';
import { platformRunnerAndChromium } from '../support/suites.js';
import { uniqueSlug } from '../support/refusal.js';
import { answerWhoAreYou, appFrame, deployStaticRoom } from '../support/room.js';

// The room with real apps (issue 29, item 6), in Chromium: a story step that moves only the
// hash reaches a hash-routed app without reloading it; a scenario shows its progress over the app
// as it was, then the app, and never the calls it made; the last step offers What happens next
// and never opens it over the app by itself.

let platform: Platform;
let browser: Browser;
platformRunnerAndChromium((p, _r, b) => ([platform, browser] = [p, b]));

const files = {
  // A hash-routed app: it shows the route it is at, and when it booted (a reload boots it again).
  'index.html':
    '<!doctype html><title>Routes</title><p id="route"></p><p id="boot"></p><a id="elsewhere" href="#/elsewhere">Elsewhere</a><script src="/route.js"></script>',
  'route.js':
    'document.getElementById("boot").textContent = String(Math.random()); const show = () => { document.getElementById("route").textContent = location.hash; }; addEventListener("hashchange", show); show();',
  'admin/index.html': '<!doctype html><title>Admin</title><h1 id="admin">Admin app</h1>',
};
const manifest = {
  kind: 'static',
  name: 'Routes demo',
  output: 'dist',
  apps: [
    { id: 'web', name: 'Website', path: '/', device: 'laptop', default: true },
    { id: 'admin', name: 'Admin', path: '/admin/', device: 'laptop' },
  ],
  story: [
    { id: 'orders', title: 'Orders', say: 'The orders.', app: 'web', path: '/#/orders' },
    { id: 'admin', title: 'The admin', say: 'Where the team works.', app: 'admin' },
    { id: 'order', title: 'One order', say: 'One of them.', app: 'web', path: '/#/orders/7' },
  ],
};

async function enterStatic(
  viewport = { width: 1280, height: 800 },
  demo: { files: Record<string, string>; manifest: object } = { files, manifest },
) {
  const person = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, person, demo);
  await person.client.call('setNextSteps', { params: { projectId: project.id }, body: { steps: [{ kind: 'yes' }, { kind: 'question' }] } });
  const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(url);
  await answerWhoAreYou(page);
  const web = await appFrame(page, 'web');
  return { page, web, context };
}

const textIn = (frame: Frame, selector: string) => frame.locator(selector).textContent();
const stepIs = (page: Page, n: number, of = 3) => expect.poll(() => page.textContent('.step-count')).toBe(`Step ${n} of ${of}`);

// An app that reads its hash only when it loads (a profiler's `#profileURL=…`), and never listens for a change.
const loadOnly = {
  files: {
    'index.html': '<!doctype html><title>Profiler</title><p id="shown"></p><script src="/read.js"></script>',
    'read.js': 'document.getElementById("shown").textContent = location.hash || "welcome";',
  },
  manifest: {
    kind: 'static',
    name: 'Profiler demo',
    output: 'dist',
    apps: [{ id: 'web', name: 'Profiler', path: '/', device: 'laptop', default: true }],
    story: [
      { id: 'welcome', title: 'Welcome', say: 'Where it starts.', app: 'web', path: '/' },
      { id: 'profile', title: 'A profile', say: 'One recorded run.', app: 'web', path: '/#profileURL=run.json' },
    ],
  },
};

describe('a story with an app that reads its hash only when it loads', () => {
  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    it(`shows the step's screen when only the hash changes (${viewport.width} px)`, async () => {
      const { page, web, context } = await enterStatic(viewport, loadOnly);
      // On a phone the tour is in the Menu.
      if (await page.locator('#tools-toggle').isVisible()) await page.click('#tools-toggle');
      await page.click('#story-toggle');
      await stepIs(page, 1, 2);
      await expect.poll(() => textIn(web, '#shown')).toBe('welcome');
      await page.click('.story [data-step="1"]');
      await stepIs(page, 2, 2);
      // The app is loaded again at the step's address (a new document: look the frame up afresh).
      await expect
        .poll(async () => textIn(await appFrame(page, 'web'), '#shown').catch(() => null), { timeout: 15_000 })
        .toBe('#profileURL=run.json');
      // The last step's card closes with its own Done (issue 47, item 6), not only with Tour again.
      await page.click('.story .story-done');
      await page.locator('#story').waitFor({ state: 'hidden' });
      await context.close();
    });
  }
});

describe('a story with a hash-routed app', () => {
  it("moves the app to each step's hash without reloading it, even after the viewer moved it", async () => {
    const { page, web, context } = await enterStatic();
    const booted = await textIn(web, '#boot');
    await page.click('#story-toggle');
    await stepIs(page, 1);
    await expect.poll(() => textIn(web, '#route')).toBe('#/orders');

    // The viewer goes elsewhere inside the app, then on to the admin and back to the step.
    await web.click('#elsewhere');
    await expect.poll(() => textIn(web, '#route')).toBe('#/elsewhere');
    await page.click('.story [data-step="1"]');
    await stepIs(page, 2);
    await page.click('.story [data-step="-1"]');
    await stepIs(page, 1);
    await expect.poll(() => textIn(web, '#route')).toBe('#/orders');
    await page.click('.story [data-step="1"]');
    await page.click('.story [data-step="1"]');
    await stepIs(page, 3);
    await expect.poll(() => textIn(web, '#route')).toBe('#/orders/7');
    expect(await web.evaluate(() => location.hash)).toBe('#/orders/7');
    // The same document all along: the app routed, it never loaded again.
    expect(await textIn(web, '#boot')).toBe(booted);
    await context.close();
  });

  it('offers What happens next at the last step and never opens it over the app; Not now holds for the session', async () => {
    const { page, context } = await enterStatic();
    await page.click('#story-toggle');
    await page.click('.story [data-step="1"]');
    await page.click('.story [data-step="1"]');
    await stepIs(page, 3);
    await appFrame(page, 'web');
    // The offer is there; the panel is not, on this tab or another.
    await page.locator('.story .next-offer').waitFor({ state: 'visible' });
    expect(await page.locator('.story .offer-open').isVisible()).toBe(true);
    expect(await page.locator('#next').isVisible()).toBe(false);
    await page.click('[role="tab"][data-tab="admin"]');
    await appFrame(page, 'admin');
    expect(await page.locator('#next').isVisible()).toBe(false);

    // Taken, it opens; closed, it stays closed, and the offer is not made again this session.
    await page.click('.story .offer-open');
    await page.locator('#next').waitFor({ state: 'visible' });
    await page.click('#next .close');
    await page.locator('#next').waitFor({ state: 'hidden' });
    expect(await page.locator('.story .next-offer').isVisible()).toBe(false);
    await page.click('.story [data-step="-1"]');
    await stepIs(page, 2);
    await page.click('.story [data-step="1"]');
    await stepIs(page, 3);
    expect(await page.locator('.story .next-offer').isVisible()).toBe(false);
    await page.reload();
    await appFrame(page, 'web');
    await page.click('#story-toggle');
    await page.click('.story [data-step="1"]');
    await page.click('.story [data-step="1"]');
    await stepIs(page, 3);
    expect(await page.locator('.story .next-offer').isVisible()).toBe(false);
    expect(await page.locator('#next').isVisible()).toBe(false);
    // Still there for the viewer who wants it.
    await page.click('#next-toggle');
    await page.locator('#next').waitFor({ state: 'visible' });
    await context.close();
  });
});

const containerManifest = {
  kind: 'container',
  name: 'Counter demo',
  health: '/healthz',
  apps: [{ id: 'web', name: 'Counter', path: '/counter', device: 'laptop' }],
  run: { start: ['node', 'server.js'] },
  controls: { scenarios: [{ id: 'add-five', label: 'Add five', call: 'POST /counter', body: { by: 5 } }] },
  story: [{ id: 'start', title: 'Start', say: 'One is added first.', app: 'web', path: '/counter', run: ['POST /counter'] }],
};

describe('a scenario in a container room', () => {
  it('shows what runs and for how long over the app as it was, then the app; never the calls', async () => {
    const person = await platform.person({ plan: 'pro' });
    const { client, token } = person;
    const project = await client.call('createProject', { body: { slug: uniqueSlug('sc'), name: 'Counter demo' } });
    const bytes = await demoBundle();
    const { uploadId, putUrl } = await client.call('startUpload', {
      params: { projectId: project.id },
      body: { kind: 'container', sizeBytes: bytes.length },
    });
    expect((await platform.fetch(putUrl, { method: 'PUT', token, body: bytes })).status).toBe(204);
    const build = await client.call('createBuild', {
      params: { projectId: project.id },
      body: { uploadId, manifest: containerManifest as never },
    });
    await client.call('makeLive', { params: { projectId: project.id, buildId: build.id } });
    const { url } = await client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Sam' } });

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(url);
    await answerWhoAreYou(page);
    const handle = await page.waitForSelector('iframe[data-app="web"][src]', { timeout: 30_000 });
    const before = (await handle.contentFrame())!;
    await before.waitForURL((u) => u.pathname === '/counter', { timeout: 30_000 });

    // The run is held at the room's door until the test has looked at the room meanwhile.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/room/*/run', async (route) => {
      await held;
      await route.continue();
    });
    await page.click('.controls summary');
    await page.click('[data-run="scenario"][data-id="add-five"]');
    const progress = page.locator('[data-progress-for="web"]');
    await progress.waitFor({ state: 'visible' });
    expect(await progress.locator('h2').textContent()).toBe('Add five');
    expect(await progress.locator('.progress-step').textContent()).toMatch(/setting up/i);
    await expect.poll(() => progress.locator('.progress-time').textContent()).toMatch(/^[1-9]\d* s$/);
    // The app as it was stays in view, not a blank frame.
    expect(JSON.parse((await before.textContent('body'))!).counter).toBe(0);
    expect(await page.locator('iframe[data-app="web"]').first().isVisible()).toBe(true);
    release();

    await page.locator('.run-outcome').filter({ hasText: 'Ready: Add five' }).waitFor();
    await progress.waitFor({ state: 'hidden' });
    const after = (await (await page.waitForSelector('iframe[data-app="web"]:not(.incoming)')).contentFrame())!;
    expect(JSON.parse((await after.textContent('body'))!).counter).toBe(5);
    // The outcome goes after a few seconds, rather than stay over the panel's title (issue 47, item 6).
    await page.locator('.run-outcome').waitFor({ state: 'hidden', timeout: 10_000 });

    // The story step's calls run; the viewer reads no call, no status.
    await page.click('#story-toggle');
    await page.locator('.story .step-status').waitFor({ state: 'hidden' });
    const seen = await page.locator('body').innerText();
    expect(seen).not.toMatch(/POST|\/counter|\(20\d\)|✓/);
    await context.close();
  });
});
