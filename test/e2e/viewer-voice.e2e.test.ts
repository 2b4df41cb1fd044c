import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { demoBundle } from '../support/runner/demo-bundle.js';
import type { Platform } from '../support/platform.js';
import { platformRunnerAndChromium } from '../support/suites.js';
import { uniqueSlug } from '../support/refusal.js';
import { answerWhoAreYou, appFrame, deployStaticRoom, pinAt, sendComment, shopRoom } from '../support/room.js';

// The viewer's voice end to end in Debian's Chromium: a viewer answers What happens next and pins
// a comment with a screenshot to a static build and to a container build; the builder reads both
// through the API, fetches the picture, replies, and the viewer finds the reply on their next
// visit. A page whose images come from another origin gives a picture or `tainted`, never a hang.

let platform: Platform;
let browser: Browser;
/** Another loopback origin: a booking page, and an image served without CORS headers. */
let elsewhere: Server;
let elsewhereUrl: string;
beforeAll(async () => {
  elsewhere = createServer((req, res) => {
    if (req.url === '/dot.png') {
      sharp({ create: { width: 40, height: 40, channels: 3, background: '#e8590c' } })
        .png()
        .toBuffer()
        .then((png) => res.writeHead(200, { 'content-type': 'image/png' }).end(png));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Book a time</title><h1>Book a time</h1>');
  });
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
});
afterAll(() => {
  elsewhere?.close();
});
platformRunnerAndChromium((p, _r, b) => ([platform, browser] = [p, b]));

/** The screenshot's bytes, as a member fetches them with their token. */
async function screenshotOf(url: string, token: string) {
  const res = await fetch(platform.baseUrl + url, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

/** The iframe's size in CSS pixels: what a picture of the viewer's screen measures at scale 1. */
const frameSize = (page: Page, appId: string) =>
  page.locator(`iframe[data-app="${appId}"]`).evaluate((f: HTMLIFrameElement) => ({ width: f.clientWidth, height: f.clientHeight }));

describe('the viewer answers and comments; the builder reads, replies, and the viewer sees it', () => {
  it('on a static build', async () => {
    const person = await platform.person({ plan: 'solo' });
    const { project } = await deployStaticRoom(platform, person, shopRoom);
    const booking = `${elsewhereUrl}/book`;
    await person.client.call('setNextSteps', {
      params: { projectId: project.id },
      body: { steps: [{ kind: 'meeting', url: booking, label: 'Pick a time' }, { kind: 'question' }, { kind: 'yes' }] },
    });
    const { url, link } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });

    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    await page.goto(url);
    await answerWhoAreYou(page);
    await appFrame(page, 'web');

    // The story's last step offers What happens next; it opens when the viewer takes the offer.
    await page.click('#story-toggle');
    await page.click('.story [data-step="1"]');
    await page.click('.story .offer-open');
    await page.locator('#next').waitFor({ state: 'visible' });
    await expect
      .poll(() => page.locator('#next .step-answer').allTextContents())
      .toEqual(['Pick a time', 'Ask a question', "Yes, let's go ahead"]);

    // A question, then the one-time email prompt.
    await page.click('#next .step-answer[data-kind="question"]');
    await page.fill('#next form[data-kind="question"] textarea', 'Can we try it with our own data?');
    await page.click('#next form[data-kind="question"] button[type="submit"]');
    await page.locator('dialog#email-ask').waitFor({ state: 'visible' });
    await page.fill('#email-form input[name="email"]', 'ada@example.com');
    await page.click('#email-form button[type="submit"]');
    await page.locator('dialog#email-ask').waitFor({ state: 'hidden' });
    // A double click stores one answer.
    await page.dblclick('#next .step-answer[data-kind="yes"]');
    await expect.poll(() => page.locator('#next .step-answer[data-kind="yes"]').getAttribute('aria-pressed')).toBe('true');
    // The meeting opens the booking page in a new tab.
    const [popup] = await Promise.all([context.waitForEvent('page'), page.click('#next .step-answer[data-kind="meeting"]')]);
    await popup.waitForLoadState();
    expect(popup.url()).toBe(booking);
    await popup.close();

    // A comment pinned to a point, with the picture of what the viewer saw.
    await pinAt(page, 'web', 0.3, 0.4);
    await sendComment(page, 'Make this heading bigger');
    const size = await frameSize(page, 'web');

    await expect
      .poll(async () => (await person.client.call('listResponses', { params: { projectId: project.id } })).map((r) => r.step).sort())
      .toEqual(['meeting', 'question', 'yes']);
    const responses = await person.client.call('listResponses', { params: { projectId: project.id } });
    expect(responses.find((r) => r.step === 'question')!.detail).toEqual({ text: 'Can we try it with our own data?' });
    const links = await person.client.call('listLinks', { params: { projectId: project.id } });
    expect(links.find((l) => l.id === link.id)!.stage).toBe('yes');

    const [comment] = await person.client.call('listComments', { params: { projectId: project.id } });
    expect(comment).toMatchObject({
      appId: 'web',
      screen: '/',
      device: 'laptop',
      body: 'Make this heading bigger',
      hasScreenshot: true,
      area: null,
      viewerName: 'Ada Prospect',
    });
    expect(comment.position!.x).toBeCloseTo(0.3, 1);
    expect(comment.position!.y).toBeCloseTo(0.4, 1);
    const detail = await person.client.call('getFeedback', { params: { commentId: comment.id } });
    expect(detail).toMatchObject({
      projectId: project.id,
      appName: 'Shop',
      screenshotNote: null,
      viewer: { name: 'Ada Prospect', email: 'ada@example.com', linkId: link.id },
    });
    const picture = await screenshotOf(detail.screenshot!.url, person.token);
    expect(picture.status).toBe(200);
    const bytes = picture.bytes;
    const meta = await sharp(bytes).metadata();
    expect({ width: meta.width, height: meta.height }).toEqual(size);
    // The picture shows the page: the blue of its background is in it.
    const { dominant } = await sharp(bytes).stats();
    expect(dominant.b).toBeGreaterThan(dominant.r);

    await person.client.call('replyToComment', { params: { commentId: comment.id }, body: { body: 'Done in the next build.' } });
    // The next visit through the same link shows the reply.
    const again = await context.newPage();
    await again.goto(url);
    await expect.poll(() => again.locator('#comment-toggle .count').textContent()).toBe('1');
    await again.click('#comment-toggle');
    await expect.poll(() => again.locator('#comments .comment-reply').textContent()).toMatch(/Done in the next build\./);
    await context.close();
  });

  it('on a container build', async () => {
    const person = await platform.person({ plan: 'pro' });
    const project = await person.client.call('createProject', { body: { slug: uniqueSlug('vv'), name: 'Counter' } });
    const bytes = await demoBundle();
    const { uploadId, putUrl } = await person.client.call('startUpload', {
      params: { projectId: project.id },
      body: { kind: 'container', sizeBytes: bytes.length },
    });
    expect((await platform.fetch(putUrl, { method: 'PUT', token: person.token, body: bytes })).status).toBe(204);
    const manifest = {
      kind: 'container',
      name: 'Counter',
      health: '/healthz',
      apps: [
        { id: 'web', name: 'Page', path: '/page', device: 'tablet' },
        { id: 'strict', name: 'Strict', path: '/csp-page', device: 'laptop' },
      ],
      run: { start: ['node', 'server.js'] },
    };
    const build = await person.client.call('createBuild', {
      params: { projectId: project.id },
      body: { uploadId, manifest: manifest as never },
    });
    await person.client.call('makeLive', { params: { projectId: project.id, buildId: build.id } });
    const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Bo' } });

    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    await page.goto(url);
    await answerWhoAreYou(page, 'Bo Buyer');
    await page.waitForSelector('iframe[data-app="web"][src]', { timeout: 60_000 });
    await appFrame(page, 'web');

    await page.click('#next-toggle');
    await page.click('#next .step-answer[data-kind="later"]');
    await page.locator('dialog#email-ask').waitFor({ state: 'visible' });
    await page.click('#email-form .skip');

    // An area dragged over the app.
    await page.click('#comment-toggle');
    const layer = page.locator('.frame:has(iframe[data-app="web"]) .pin-layer');
    const box = (await layer.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.1, box.y + box.height * 0.1);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.3, { steps: 5 });
    await page.mouse.up();
    await sendComment(page, 'What does Go do?');
    const size = await frameSize(page, 'web');

    const [comment] = await person.client.call('listComments', { params: { projectId: project.id } });
    expect(comment).toMatchObject({ appId: 'web', screen: '/page', device: 'tablet', position: null, hasScreenshot: true });
    expect(comment.area!.x).toBeCloseTo(0.1, 1);
    expect(comment.area!.width).toBeCloseTo(0.4, 1);
    const detail = await person.client.call('getFeedback', { params: { commentId: comment.id } });
    const picture = (await screenshotOf(detail.screenshot!.url, person.token)).bytes;
    const meta = await sharp(picture).metadata();
    expect({ width: meta.width, height: meta.height }).toEqual(size);
    expect((await person.client.call('listResponses', { params: { projectId: project.id } })).map((r) => r.step)).toEqual(['later']);

    // An app whose own Content-Security-Policy stops the agent: the comment says `blocked`.
    await page.click('#comment-toggle'); // out of comment mode
    await page.click('[role="tab"][data-tab="strict"]');
    await page.waitForSelector('iframe[data-app="strict"][src]');
    await appFrame(page, 'strict');
    await pinAt(page, 'strict', 0.5, 0.5);
    await sendComment(page, 'Nothing here?');
    const strict = (await person.client.call('listComments', { params: { projectId: project.id } })).find((c) => c.appId === 'strict')!;
    expect(strict.hasScreenshot).toBe(false);
    expect((await person.client.call('getFeedback', { params: { commentId: strict.id } })).screenshotNote).toBe('blocked');
    await context.close();
  });
});

it('a page with an image from another origin gives a picture or `tainted`, never a hang', async () => {
  const person = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, person, {
    files: {
      'index.html':
        `<!doctype html><html><head><title>Pics</title></head><body><h1>Pictures</h1><img src="${'ELSEWHERE'}/dot.png" width="40" height="40"></body></html>`.replace(
          'ELSEWHERE',
          elsewhereUrl,
        ),
    },
    manifest: { kind: 'static', name: 'Pics', output: 'dist', apps: [{ id: 'web', name: 'Pics', path: '/', device: 'none' }] },
  });
  const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Cy' } });
  const page = await (await browser.newContext()).newPage();
  await page.goto(url);
  await answerWhoAreYou(page);
  const frame = await appFrame(page, 'web');
  await frame.waitForFunction(() => (document.querySelector('img') as HTMLImageElement).complete);
  // From the keyboard this time: comment mode, then Enter pins the middle of the screen.
  await page.click('#comment-toggle');
  await page.locator('.pin-layer').waitFor();
  await page.keyboard.press('Enter');
  await page.locator('#comment-form').waitFor({ state: 'visible' });
  await sendComment(page, 'Whose picture is this?');
  const [comment] = await person.client.call('listComments', { params: { projectId: project.id } });
  expect(comment.position).toEqual({ x: 0.5, y: 0.5 });
  const detail = await person.client.call('getFeedback', { params: { commentId: comment.id } });
  expect(detail.screenshot !== null || detail.screenshotNote === 'tainted').toBe(true);
  await page.context().close();
});
