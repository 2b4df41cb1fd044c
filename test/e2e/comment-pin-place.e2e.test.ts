import sharp from 'sharp';
import type { Browser, BrowserContextOptions } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Platform } from '../support/platform.js';
import { answerWhoAreYou, appFrame, deployStaticRoom } from '../support/room.js';
import { platformAndChromium } from '../support/suites.js';

// A comment's pin lands where the viewer tapped (issue 47, item 3). On a phone the comment sheet
// grows below the app when the tap opens the form, so the app's visible area shrinks after the
// tap: the stored point and the picture must both be of the area as it was at the tap, or the
// builder's Activity (which draws the point over the picture, in fractions of it) shows the pin
// on a line above the one tapped. The app is 40 bands, each its own colour; the viewer taps the
// band low in the visible area, and the picture's pixel at the stored point is that band's.

let platform: Platform;
let browser: Browser;
platformAndChromium((p, b) => ([platform, browser] = [p, b]));

const BANDS = 40;
/** Band i's colour: neighbours differ a lot in blue, any two in red and green. */
const colourOf = (i: number) => [i * 6, 255 - i * 6, i % 2 ? 40 : 200];
const page = `<!doctype html><html><head><title>Bands</title><meta name="viewport" content="width=device-width"></head>
<body style="margin:0">${Array.from(
  { length: BANDS },
  (_, i) => `<div id="band-${i}" style="height:30px;background:rgb(${colourOf(i).join(',')})"></div>`,
).join('')}</body></html>`;

const screens: [string, BrowserContextOptions][] = [
  ['a phone (390 px)', { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true }],
  ['a laptop (1280 px)', { viewport: { width: 1280, height: 800 } }],
];

describe.each(screens)('a comment pinned on %s', (_, screen) => {
  it('stores the point on the band tapped, in the picture it sends', async () => {
    const person = await platform.person({ plan: 'solo' });
    const { project } = await deployStaticRoom(platform, person, {
      files: { 'index.html': page },
      manifest: { kind: 'static', name: 'Bands', output: 'dist', apps: [{ id: 'web', name: 'Bands', path: '/', device: 'none' }] },
    });
    const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Vi' } });
    const context = await browser.newContext(screen);
    const room = await context.newPage();
    await room.goto(url);
    await answerWhoAreYou(room);
    const frame = await appFrame(room, 'web');

    // Comment mode; on a phone the Comment control is in the menu.
    if (await room.locator('#tools-toggle').isVisible()) await room.locator('#tools-toggle').click();
    await room.locator('#comment-toggle').click();
    const layer = room.locator('.frame:has(iframe[data-app="web"]) .pin-layer');
    await layer.waitFor();
    // The band at 85 % of the app's visible height, as the viewer sees it now.
    const box = (await layer.boundingBox())!;
    const tap = { x: box.width / 2, y: Math.round(box.height * 0.85) };
    const band = await frame.evaluate(({ x, y }) => document.elementFromPoint(x, y)!.id, tap);
    expect(band).toMatch(/^band-\d+$/);
    if (screen.hasTouch) await layer.tap({ position: tap });
    else await layer.click({ position: tap });
    await room.locator('#comment-form').waitFor({ state: 'visible' });
    // Once the picture is taken the app is let go to its shorter height (on a phone the band may
    // then be under the sheet); the viewer's mark stays on the band they tapped.
    await room.waitForFunction(() => !document.querySelector('.panel.holding'));
    const mark = (await room.locator('.pin-mark.point').boundingBox())!;
    const layerNow = (await layer.boundingBox())!;
    const markY = mark.y + mark.height / 2 - layerNow.y;
    const bandBox = await frame.evaluate((id) => document.getElementById(id)!.getBoundingClientRect().toJSON(), band);
    expect(markY).toBeGreaterThanOrEqual(bandBox.top);
    expect(markY).toBeLessThanOrEqual(bandBox.bottom);
    await room.fill('#comment-form textarea[name="body"]', `This band: ${band}`);
    await room.click('#comment-form button[type="submit"]');
    await expect.poll(() => room.locator('.comment-outcome').textContent(), { timeout: 60_000 }).toMatch(/^Sent\b/);
    expect(await room.locator('.comment-outcome').textContent()).toBe('Sent. Thank you.');

    const [comment] = await person.client.call('listComments', { params: { projectId: project.id } });
    const detail = await person.client.call('getFeedback', { params: { commentId: comment.id } });
    const res = await fetch(platform.baseUrl + detail.screenshot!.url, { headers: { authorization: `Bearer ${person.token}` } });
    const { data, info } = await sharp(Buffer.from(await res.arrayBuffer()))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    // The picture is the area the viewer tapped in, whole: as wide and as tall as the layer was.
    expect(info.width).toBe(Math.round(box.width));
    expect(info.height).toBe(Math.round(box.height));
    // Where the Activity draws the pin, on the picture: the band the viewer tapped.
    const px = Math.min(info.width - 1, Math.floor(comment.position!.x * info.width));
    const py = Math.min(info.height - 1, Math.floor(comment.position!.y * info.height));
    const rgb = [...data.subarray((py * info.width + px) * 3, (py * info.width + px) * 3 + 3)];
    const distance = (i: number) => colourOf(i).reduce((sum, c, k) => sum + (c - rgb[k]) ** 2, 0);
    const nearest = Array.from({ length: BANDS }, (_, i) => i).sort((a, b) => distance(a) - distance(b))[0];
    expect(`band-${nearest}`).toBe(band);
    await context.close();
  });
});
