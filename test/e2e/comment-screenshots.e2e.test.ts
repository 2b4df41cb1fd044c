import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import type { Platform } from '../support/platform.js';
import { answerWhoAreYou, appFrame, deployStaticRoom, pinAt } from '../support/room.js';
import { platformAndChromium } from '../support/suites.js';

// Comment screenshots of real apps (issue 29, item 4), through the room shell in Chromium: the
// helper is in the page once however the page is made, the stored picture is what the frame
// shows (a light page drawn on a WebGL canvas, its body transparent), a page of thousands of
// elements still gets its picture, and a comment is never left on "Sending…".

let platform: Platform;
let browser: Browser;
type Person = Awaited<ReturnType<Platform['person']>>;
platformAndChromium((p, b) => ([platform, browser] = [p, b]));

const HELPER = 'script[src="/__pp/frame-helper.js"]';

// Node-RED's editor, in small: inline templates that hold whole documents, and node templates
// the editor fetches as HTML and puts into its page, scripts and all.
const editor = `<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8"><title>Node-RED</title>
</head>
<body style="margin:0;background:#fff;font:16px sans-serif">
<div id="header" style="height:48px;background:#000;color:#fff">Node-RED</div>
<script type="text/x-red" data-template-name="page"><!doctype html><html><head><title>t</title></head><body><h1>{{title}}</h1></body></html></script>
<script type="text/html" data-help-name="page"><head></head><p>Help</p></script>
<template id="tray"><head><script src="/tray.js"></script></head></template>
<textarea hidden></head><body></textarea>
<script>
fetch('/nodes.html', { headers: { accept: 'text/html' } }).then((r) => r.text()).then((html) => {
  document.body.append(document.createRange().createContextualFragment(html));
  document.body.dataset.nodes = 'loaded';
});
</script>
</body>
</html>`;
const nodes = `<script type="text/x-red" data-template-name="inject"><div class="form-row"><label>Payload</label></div></script>
<script type="text/javascript">window.registered = (window.registered || 0) + 1;</script>`;

// speedscope's landing page, in small: nothing sets a background, the page is drawn white on a
// WebGL canvas (no alpha) behind the words, and the words are dark.
const glPage = `<!doctype html><html><head><title>speedscope</title></head>
<body style="margin:0;font:20px sans-serif;color:#212529">
<canvas id="gl" style="position:fixed;left:0;top:0;width:100vw;height:100vh;z-index:-1"></canvas>
<h1 style="margin:40px">Drag and drop a profile file onto this window</h1>
<div id="mark" style="position:absolute;left:40px;top:160px;width:240px;height:120px;background:#212529"></div>
<script>
const canvas = document.getElementById('gl');
canvas.width = innerWidth;
canvas.height = innerHeight;
const gl = canvas.getContext('webgl', { alpha: false });
const draw = () => { gl.clearColor(1, 1, 1, 1); gl.clear(gl.COLOR_BUFFER_BIT); };
draw();
addEventListener('resize', () => { canvas.width = innerWidth; canvas.height = innerHeight; draw(); });
document.body.dataset.drawn = 'yes';
</script>
</body></html>`;

// Thousands of elements, most of them out of view: a header band, then 3,000 rows.
const heavyRows = 3000;
const heavyPage = `<!doctype html><html><head><title>Heavy</title><style>
body { margin: 0; font: 14px sans-serif } table { width: 100%; border-collapse: collapse }
td { height: 20px; padding: 2px 6px; border-bottom: 1px solid #dee2e6 } tr:nth-child(odd) td { background: #d0ebff }
</style></head><body><div id="band" style="height:120px;background:#2f9e44"></div><table>${Array.from(
  { length: heavyRows },
  (_, i) => `<tr><td>${i}</td><td><b>Item ${i}</b></td><td><span>€${i}.00</span></td><td><a href="#r${i}">open</a></td></tr>`,
).join('')}</table></body></html>`;

// An app whose pictures never finish (its canvas never gives its bytes: the helper answers
// 'failed' when its time is up), beside a second app the viewer turns to while the comment is sent.
const stuckPage = `<!doctype html><html><head><title>Stuck</title><script>
HTMLCanvasElement.prototype.toBlob = function () {};
</script></head><body><h1>Stuck</h1></body></html>`;

async function room(
  files: Record<string, string>,
  apps = [{ id: 'web', name: 'App', path: '/', device: 'none' }],
): Promise<{ person: Person; projectId: string; page: Page }> {
  const person = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, person, {
    files,
    manifest: { kind: 'static', name: 'Real app', output: 'dist', apps },
  });
  const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Vi' } });
  const page = await (await browser.newContext({ viewport: { width: 1100, height: 760 } })).newPage();
  await page.goto(url);
  await answerWhoAreYou(page);
  return { person, projectId: project.id, page };
}

/** Writes the comment the pin opened and sends it; the room's last word on it. */
async function send(page: Page, text: string): Promise<string> {
  await page.fill('#comment-form textarea[name="body"]', text);
  await page.click('#comment-form button[type="submit"]');
  await expect.poll(() => page.locator('.comment-outcome').textContent(), { timeout: 60_000 }).toMatch(/^Sent\b/);
  return (await page.locator('.comment-outcome').textContent())!;
}

async function storedPicture(person: Person, projectId: string) {
  const [comment] = await person.client.call('listComments', { params: { projectId } });
  const detail = await person.client.call('getFeedback', { params: { commentId: comment.id } });
  if (!detail.screenshot) return { comment, detail, bytes: null };
  const res = await fetch(platform.baseUrl + detail.screenshot.url, { headers: { authorization: `Bearer ${person.token}` } });
  return { comment, detail, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** RGB at (x, y) of an image. */
async function pixels(png: Buffer) {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    at: (x: number, y: number) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)],
  };
}

it('puts the helper in a page with inline templates once, and the comment gets its picture', async () => {
  const { person, projectId, page } = await room({ 'index.html': editor, 'nodes.html': nodes });
  const frame = await appFrame(page, 'web');
  await frame.waitForFunction(() => document.body.dataset.nodes === 'loaded');
  // The fetched node templates went in with their script run, and without a helper of their own.
  expect(await frame.evaluate(() => (window as unknown as { registered: number }).registered)).toBe(1);
  expect(await frame.locator(HELPER).count()).toBe(1);
  expect(await frame.evaluate((sel) => document.querySelector(sel)!.parentElement!.localName, HELPER)).toBe('head');
  // The templates are as the app wrote them.
  expect(await frame.evaluate(() => document.querySelector('script[data-template-name="page"]')!.textContent)).not.toContain(
    'frame-helper',
  );

  await pinAt(page, 'web', 0.5, 0.5);
  expect(await send(page, 'Where is the deploy button?')).toBe('Sent. Thank you.');
  const { comment, bytes } = await storedPicture(person, projectId);
  expect(comment.hasScreenshot).toBe(true);
  // The black header is at the top of the picture.
  const image = await pixels(bytes!);
  expect(Math.max(...image.at(200, 20))).toBeLessThan(40);
  await page.context().close();
});

it('stores a picture of a light page drawn on a WebGL canvas as the frame shows it: white, with dark words', async () => {
  const { person, projectId, page } = await room({ 'index.html': glPage });
  const frame = await appFrame(page, 'web');
  await frame.waitForFunction(() => document.body.dataset.drawn === 'yes');
  // What the viewer sees, before the comment layer covers it.
  const shown = await pixels(await page.locator('iframe[data-app="web"]').screenshot());

  await pinAt(page, 'web', 0.8, 0.8);
  expect(await send(page, 'The drop zone is hard to find')).toBe('Sent. Thank you.');
  const { bytes } = await storedPicture(person, projectId);
  const stored = await pixels(bytes!);
  expect({ width: stored.width, height: stored.height }).toEqual({ width: shown.width, height: shown.height });
  const blank = [
    [600, 400],
    [stored.width - 10, stored.height - 10],
    [10, 120],
    [900, 200],
  ];
  const dark = [
    [60, 180],
    [160, 220],
    [270, 270],
  ];
  for (const [x, y] of [...blank, ...dark]) {
    const seen = shown.at(x, y);
    const kept = stored.at(x, y);
    expect(
      kept.map((v, i) => Math.abs(v - seen[i])).every((d) => d <= 16),
      `(${x}, ${y}): stored ${kept}, shown ${seen}`,
    ).toBe(true);
  }
  for (const [x, y] of blank) expect(Math.min(...stored.at(x, y)), `white at (${x}, ${y})`).toBeGreaterThan(240);
  for (const [x, y] of dark) expect(Math.max(...stored.at(x, y)), `dark at (${x}, ${y})`).toBeLessThan(60);
  await page.context().close();
});

it(`gets a picture of a page of ${heavyRows * 8} elements`, async () => {
  const { person, projectId, page } = await room({ 'index.html': heavyPage });
  const frame = await appFrame(page, 'web');
  expect(await frame.evaluate(() => document.getElementsByTagName('*').length)).toBeGreaterThan(heavyRows * 8);
  const shown = await pixels(await page.locator('iframe[data-app="web"]').screenshot());
  await pinAt(page, 'web', 0.5, 0.5);
  expect(await send(page, 'So many rows')).toBe('Sent. Thank you.');
  const { comment, bytes } = await storedPicture(person, projectId);
  expect(comment.hasScreenshot).toBe(true);
  const stored = await pixels(bytes!);
  // The green band on top, then the striped rows, where the frame shows them.
  const green = stored.at(500, 60);
  expect(green[1]).toBeGreaterThan(green[0] + 60);
  let stripes = 0;
  // (Rows of a fraction of a pixel's height may round a pixel apart: a match within 2 px counts.)
  for (let y = 125; y < stored.height - 5; y += 7) {
    const kept = stored.at(1050, y);
    const near = [-2, -1, 0, 1, 2].map((d) => shown.at(1050, y + d));
    expect(
      near.some((seen) => kept.every((v, i) => Math.abs(v - seen[i]) <= 16)),
      `(1050, ${y}): stored ${kept}, shown ${near[2]}`,
    ).toBe(true);
    if (kept[0] < 220) stripes++;
  }
  expect(stripes).toBeGreaterThan(20);
  await page.context().close();
});

it('sends the comment and says why when no picture comes, even if the viewer moves on meanwhile', async () => {
  const { person, projectId, page } = await room(
    { 'index.html': stuckPage, 'other.html': '<!doctype html><title>Other</title><h1>Other</h1>' },
    [
      { id: 'web', name: 'Stuck', path: '/', device: 'none' },
      { id: 'other', name: 'Other', path: '/other.html', device: 'none' },
    ],
  );
  await page.click('[role="tab"][data-tab="web"]');
  await appFrame(page, 'web');
  await pinAt(page, 'web', 0.5, 0.5);
  await page.fill('#comment-form textarea[name="body"]', 'Is anyone there?');
  await page.click('#comment-form button[type="submit"]');
  await expect.poll(() => page.locator('.comment-outcome').textContent()).toBe('Sending…');
  // The viewer turns to the other app while the room waits for the picture.
  await page.click('[role="tab"][data-tab="other"]');
  await expect
    .poll(() => page.locator('.comment-outcome').textContent(), { timeout: 30_000 })
    .toBe('Sent without a picture: it could not be made. Thank you.');
  const { comment, detail } = await storedPicture(person, projectId);
  expect(comment).toMatchObject({ appId: 'web', body: 'Is anyone there?', hasScreenshot: false });
  expect(detail.screenshotNote).toBe('failed');
  await page.context().close();
});
