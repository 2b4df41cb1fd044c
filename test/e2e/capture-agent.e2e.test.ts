import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Platform } from '../support/platform.js';
import { answerWhoAreYou, appFrame, deployStaticRoom } from '../support/room.js';
import { platformAndChromium } from '../support/suites.js';
import { capture } from '../support/capture.js';

// The capture agent in a static build's frame (frame-helper.js with modern-screenshot): the room
// asks over postMessage, the frame answers at once, then with a picture of what the viewer sees.

let platform: Platform;
let browser: Browser;
platformAndChromium((p, b) => ([platform, browser] = [p, b]));

// Another loopback origin, serving an image without CORS headers (the library cannot read it),
// and one it never finishes sending (the library must not wait for it for ever).
let elsewhere: Server;
let elsewhereUrl: string;
beforeAll(async () => {
  const picture = await sharp({ create: { width: 120, height: 120, channels: 3, background: '#e8590c' } })
    .png()
    .toBuffer();
  elsewhere = createServer((req, res) => {
    if (req.url === '/never.png') return void res.writeHead(200, { 'content-type': 'image/png' }).write(picture.subarray(0, 20));
    res.writeHead(200, { 'content-type': 'image/png' }).end(picture);
  });
  await new Promise<void>((done) => elsewhere.listen(0, '127.0.0.1', done));
  elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
});
afterAll(
  () =>
    new Promise<void>((done) => {
      if (!elsewhere) return done();
      elsewhere.close(() => done());
      elsewhere.closeAllConnections();
    }),
);

// Bands of colour 300 px high under a fixed header 60 px high: which band shows at the top of the
// picture says where the page was scrolled to.
const bands = ['#2f9e44', '#1971c2', '#f08c00', '#ae3ec9', '#0c8599', '#e03131'];
const page = `<!doctype html><html><head><title>Bands</title><style>
  body { margin: 0; background: #f1f3f5; font: 16px sans-serif }
  header { position: fixed; top: 0; left: 0; right: 0; height: 60px; background: #212529; color: #fff }
  .band { height: 300px }
</style></head><body><header>Header</header>
${bands.map((c, i) => `<div class="band" id="band${i}" style="background:${c}">Band ${i}</div>`).join('')}
</body></html>`;

const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

async function openRoom(): Promise<{ page: Page }> {
  const person = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, person, {
    files: {
      'index.html': page,
      // Policies in the page itself, after the helper's tag: the helper runs, but the picture cannot be made.
      'no-data-images.html': `<!doctype html><html><head><meta http-equiv="Content-Security-Policy" content="img-src 'self'"><title>Strict</title></head><body style="background:#d0ebff"><h1>No data: images</h1></body></html>`,
      'no-more-scripts.html': `<!doctype html><html><head><meta http-equiv="Content-Security-Policy" content="script-src 'none'"><title>Strict</title></head><body><h1>No more scripts</h1></body></html>`,
      'elsewhere.html': `<!doctype html><html><head><title>Elsewhere</title></head><body style="margin:0;background:#fff3bf"><h1>An image from elsewhere</h1><img src="${elsewhereUrl}/picture.png" width="120" height="120"><img src="${elsewhereUrl}/never.png" width="60" height="60"></body></html>`,
    },
    manifest: { kind: 'static', name: 'Capture demo', output: 'dist', apps: [{ id: 'web', name: 'Bands', path: '/', device: 'none' }] },
  });
  const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Cami' } });
  const viewer = await (await browser.newContext({ viewport: { width: 1100, height: 760 } })).newPage();
  await viewer.goto(url);
  await answerWhoAreYou(viewer);
  return { page: viewer };
}

it('answers with a picture of the visible viewport, the size of the frame, without the ring', async () => {
  const { page: viewer } = await openRoom();
  const frame = await appFrame(viewer, 'web');
  // A ring drawn around band 4 (pointing scrolls it to the middle of the frame).
  const ring = await viewer.evaluate(
    () =>
      new Promise<{ top: number; left: number; width: number; height: number }>((resolve) => {
        const iframe = document.querySelector<HTMLIFrameElement>('iframe[data-app="web"]')!;
        addEventListener('message', function on(e) {
          if (e.source !== iframe.contentWindow || e.data?.type !== 'pp:pointed') return;
          removeEventListener('message', on);
          resolve(e.data.rect);
        });
        iframe.contentWindow!.postMessage({ type: 'pp:point', selector: '#band4' }, new URL(iframe.src).origin);
      }),
  );
  await frame.waitForSelector('[data-pp-ring]', { state: 'attached' });
  const scrollY: number = await frame.evaluate(() => window.scrollY);

  const answer = await capture(viewer, 'web', 2_000_000);
  expect(answer.ack).toBe(true);
  expect(answer.ackMs).toBeLessThan(answer.answerMs);
  expect(answer.captured).toMatchObject({
    type: 'pp:captured',
    ok: true,
    imageType: 'image/png',
    screen: '/',
    width: answer.frameWidth,
    height: answer.frameHeight,
  });
  const image = sharp(answer.bytes!);
  expect(await image.metadata()).toMatchObject({ format: 'png', width: answer.frameWidth, height: answer.frameHeight });
  const stats = await image.stats();
  expect(stats.channels.slice(0, 3).some((c) => c.stdev > 0)).toBe(true);

  // What the viewer sees at that scroll: the fixed header on top, then the bands at their place.
  const { data, info } = await sharp(answer.bytes!).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)];
  const near = (actual: number[], hex: string) => actual.every((v, i) => Math.abs(v - rgb(hex)[i]) <= 3);
  expect(near(at(info.width - 5, 30), '#212529')).toBe(true);
  expect(scrollY).toBeGreaterThan(300);
  const bandAt = (y: number) => bands[Math.floor((y + scrollY) / 300)];
  const clearOfEdges = (y: number) => Math.abs(((y + scrollY) % 300) - 150) < 145;
  for (const y of [70, 150, 250, 400, 500, info.height - 5].filter(clearOfEdges))
    expect(near(at(info.width / 2, y), bandAt(y)), `y=${y}`).toBe(true);
  // The ring is not in the picture: its top border (3 px, 6 px above band 4) shows band 3.
  const ringY = Math.round(ring.top - 5);
  expect(ringY).toBeGreaterThan(60);
  expect(near(at(Math.round(info.width / 2), ringY), bands[3]), 'the ring is left out').toBe(true);
  expect(await frame.locator('[data-pp-ring]').count()).toBe(1);
  await viewer.context().close();
});

it('says which screen the frame is on, and answers for a page with an image it cannot read', async () => {
  const { page: viewer } = await openRoom();
  const frame = await appFrame(viewer, 'web');
  // Screens as the shell hears them: each document's pp:ready, then in-app navigations.
  await viewer.evaluate(() => {
    const iframe = document.querySelector<HTMLIFrameElement>('iframe[data-app="web"]')!;
    (window as any).screens = [];
    addEventListener('message', (e) => {
      if (e.source === iframe.contentWindow && /^pp:(ready|screen)$/.test(e.data?.type))
        (window as any).screens.push(`${e.data.type} ${e.data.screen}`);
    });
  });
  await frame.evaluate(() => {
    history.pushState({}, '', '/orders?tab=open');
    history.replaceState({}, '', '/orders?tab=open'); // the same screen: said once
    location.hash = '#line-2';
  });
  // (The first document's pp:ready may still be on its way when the listener starts.)
  const said = () => viewer.evaluate(() => ((window as any).screens as string[]).filter((s) => s !== 'pp:ready /'));
  await expect.poll(said).toEqual(['pp:screen /orders?tab=open', 'pp:screen /orders?tab=open#line-2']);
  await frame.evaluate(() => history.back());
  await expect.poll(async () => (await said()).at(-1)).toBe('pp:screen /orders?tab=open');

  // (Its load event never comes: one of its images never ends.)
  await frame.goto(new URL('/elsewhere.html?from=test', frame.url()).toString(), { waitUntil: 'commit' });
  await expect.poll(async () => (await said()).at(-1)).toBe('pp:ready /elsewhere.html?from=test');
  await frame.waitForFunction(() => document.images[0].complete);
  const answer = await capture(viewer, 'web', 2_000_000);
  expect(answer.ack).toBe(true);
  // The image from elsewhere is left out (the library cannot fetch it) or taints the canvas:
  // either way the frame answers, in time (its own limit is 8 s).
  expect(answer.captured).toMatchObject({ screen: '/elsewhere.html?from=test' });
  expect(answer.answerMs).toBeLessThan(8_500);
  if (answer.captured?.ok)
    expect(await sharp(answer.bytes!).metadata()).toMatchObject({ width: answer.frameWidth, height: answer.frameHeight });
  else expect(answer.captured?.note).toBe('tainted');
  await viewer.context().close();
});

it("says too-large when even WebP passes the room's limit", async () => {
  const { page: viewer } = await openRoom();
  await appFrame(viewer, 'web');
  const answer = await capture(viewer, 'web', 200);
  expect(answer.ack).toBe(true);
  expect(answer.captured).toEqual({ type: 'pp:captured', nonce: answer.nonce, ok: false, note: 'too-large', screen: '/' });
  await viewer.context().close();
});

it("says blocked when the page's own policy stops the picture", async () => {
  const { page: viewer } = await openRoom();
  const frame = await appFrame(viewer, 'web');
  // img-src refuses the SVG image the library draws from.
  await frame.goto(new URL('/no-data-images.html', frame.url()).toString());
  let answer = await capture(viewer, 'web', 2_000_000);
  expect(answer.ack).toBe(true);
  expect(answer.captured).toMatchObject({ ok: false, note: 'blocked', screen: '/no-data-images.html' });
  // script-src refuses the library itself.
  await frame.goto(new URL('/no-more-scripts.html', frame.url()).toString());
  answer = await capture(viewer, 'web', 2_000_000);
  expect(answer.ack).toBe(true);
  expect(answer.captured).toMatchObject({ ok: false, note: 'blocked', screen: '/no-more-scripts.html' });
  await viewer.context().close();
});
