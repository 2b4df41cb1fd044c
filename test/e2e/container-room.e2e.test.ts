import { describe, expect, it } from 'vitest';
import type { Browser, Frame, Page } from 'playwright-core';
import { demoBundle } from '../support/runner/demo-bundle.js';
import { captureBlocked } from '../../services/data/capture-blocks.sql.js';
import type { TestRunner } from '../support/runner/test-runner.js';
import { capture } from '../support/capture.js';
import type { Platform } from '../support/platform.js';
import { platformRunnerAndChromium } from '../support/suites.js';
import { uniqueSlug } from '../support/refusal.js';

// A container demo in a real browser: each viewer gets their own copy, reached through their own
// copy origin, HTTP and WebSocket; scenario controls run on that copy only; the room's capture
// agent answers in the copy's pages, unless the copy's own policy stops it.

let platform: Platform;
let runner: TestRunner;
let browser: Browser;
platformRunnerAndChromium((p, r, b) => ([platform, runner, browser] = [p, r, b]));

const manifest = {
  kind: 'container',
  name: 'Counter demo',
  health: '/healthz',
  apps: [{ id: 'web', name: 'Counter', path: '/counter', device: 'laptop' }],
  run: { start: ['node', 'server.js'] },
  controls: { reset: 'DELETE /counter', scenarios: [{ id: 'add-five', label: 'Add five', call: 'POST /counter', body: { by: 5 } }] },
  story: [{ id: 'start', title: 'Start', say: 'One is added first.', app: 'web', path: '/counter', run: ['POST /counter'] }],
};

async function deployContainer() {
  const person = await platform.person({ plan: 'pro' });
  const { client, token } = person;
  const project = await client.call('createProject', { body: { slug: uniqueSlug('cr'), name: 'Counter demo' } });
  const bytes = await demoBundle();
  const { uploadId, putUrl } = await client.call('startUpload', {
    params: { projectId: project.id },
    body: { kind: 'container', sizeBytes: bytes.length },
  });
  expect((await platform.fetch(putUrl, { method: 'PUT', token, body: bytes })).status).toBe(204);
  const build = await client.call('createBuild', { params: { projectId: project.id }, body: { uploadId, manifest: manifest as never } });
  await client.call('makeLive', { params: { projectId: project.id, buildId: build.id } });
  return { person, project };
}

async function enter(url: string, name: string): Promise<{ page: Page; frame: Frame }> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(url);
  await page.fill('#who-form input[name="name"]', name);
  await page.click('#who-form button[type="submit"]');
  const handle = await page.waitForSelector('iframe[data-app="web"][src]', { timeout: 30_000 });
  const frame = (await handle.contentFrame())!;
  await frame.waitForURL((u) => u.pathname === '/counter', { timeout: 30_000 });
  return { page, frame };
}

const counterIn = async (frame: Frame) => JSON.parse((await frame.textContent('body'))!).counter as number;

describe('a container room', () => {
  it('gives each viewer their own copy on their own origin, with WebSockets and scenario controls', async () => {
    const { person, project } = await deployContainer();
    const a = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'A' } });
    const b = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'B' } });
    const viewerA = await enter(a.url, 'Ann');
    const viewerB = await enter(b.url, 'Ben');

    const hostA = new URL(viewerA.frame.url()).host;
    const hostB = new URL(viewerB.frame.url()).host;
    expect(hostA).toMatch(new RegExp(`^${project.slug}--v[0-9a-f]{12}\\.rooms\\.localhost:`));
    expect(hostA).not.toBe(hostB);
    // Each copy says who it is: two copies, each told its own PORT and HOST.
    const whoA = await viewerA.frame.evaluate(() => fetch('/whoami').then((r) => r.json()));
    const whoB = await viewerB.frame.evaluate(() => fetch('/whoami').then((r) => r.json()));
    expect(whoA.copy).not.toBe(whoB.copy);
    expect(whoA.port).toBeGreaterThan(0);
    expect(typeof whoA.host).toBe('string');

    // A WebSocket from the demo reaches its own copy and back.
    const echoed = await viewerA.frame.evaluate(
      () =>
        new Promise<string>((resolve, reject) => {
          const ws = new WebSocket(location.origin.replace(/^http/, 'ws') + '/socket');
          ws.onopen = () => ws.send('hello copy');
          ws.onmessage = (m) => {
            resolve(String(m.data));
            ws.close();
          };
          ws.onerror = () => reject(new Error('websocket failed'));
        }),
    );
    expect(echoed).toBe('hello copy');

    // A scenario runs on the viewer's own copy, and nobody else's.
    await viewerA.page.click('.controls summary');
    await viewerA.page.click('[data-run="scenario"][data-id="add-five"]');
    await viewerA.page.waitForSelector('.run-outcome:has-text("Ready: Add five")');
    // The app's page loaded behind the one shown and took its place: a new frame.
    const reloaded = (await (await viewerA.page.waitForSelector('iframe[data-app="web"]:not(.incoming)')).contentFrame())!;
    await reloaded.waitForURL((u) => u.pathname === '/counter');
    expect(await counterIn(reloaded)).toBe(5);
    await viewerB.frame.goto(new URL('/counter', viewerB.frame.url()).toString());
    expect(await counterIn(viewerB.frame)).toBe(0);

    // The story step's calls run before it shows.
    await viewerB.page.click('#story-toggle');
    await viewerB.page.waitForSelector('.story .step-status', { state: 'hidden' });
    await expect.poll(() => counterIn(viewerB.frame), { timeout: 15_000 }).toBe(1);

    // Another viewer's cookie is no key to this copy: the origin answers nothing without its own.
    const stranger = await (await browser.newContext()).newPage();
    const answer = await stranger.goto(`http://${hostA}/counter`);
    expect(answer!.status()).toBe(404);
  });
});

describe("the capture agent in a viewer's copy", () => {
  it("answers in the copy's pages, never where the copy's policy stops it, and the room knows which", async () => {
    const { person, project } = await deployContainer();
    const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'C' } });
    const { page, frame } = await enter(url, 'Cleo');
    const sessionId: string = await page.evaluate(() => JSON.parse(document.getElementById('room-data')!.textContent!).sessionId);
    const label = new URL(frame.url()).hostname.split('.')[0];
    const blocked = () => captureBlocked(platform.deps.sql, sessionId, label);

    await frame.goto(new URL('/page', frame.url()).toString());
    const pictured = await capture(page, 'web', 2_000_000);
    expect(pictured.ack).toBe(true);
    expect(pictured.captured).toMatchObject({
      ok: true,
      imageType: 'image/png',
      screen: '/page',
      width: pictured.frameWidth,
      height: pictured.frameHeight,
    });
    expect(await blocked()).toBe(false);

    await frame.goto(new URL(`/csp-page?csp=${encodeURIComponent("script-src 'none'")}`, frame.url()).toString());
    await expect.poll(blocked).toBe(true);
    // Nobody in the frame to answer: not even the acknowledgement comes.
    const unanswered = await capture(page, 'web', 2_000_000, 3_000);
    expect(unanswered.ack).toBe(false);
    expect(unanswered.captured).toBeNull();

    await frame.goto(new URL('/page', frame.url()).toString());
    await expect.poll(blocked).toBe(false);
    expect((await capture(page, 'web', 2_000_000)).captured).toMatchObject({ ok: true, screen: '/page' });
    await page.context().close();
  });
});
