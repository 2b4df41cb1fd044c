import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { webpBomb } from '../../../test/fixtures/images.js';
import { decodeSlots, ImageRefused, reencodeImage, screenshotRules } from './images.js';

const rules = { types: ['image/png', 'image/webp'] as const, maxBytes: 200_000, maxSide: 4000 };
const png = (width = 40, height = 30) =>
  sharp({ create: { width, height, channels: 4, background: '#336699' } })
    .png()
    .toBuffer();

describe('reencodeImage', () => {
  it('takes a PNG and a WebP, re-encoded in their own format at their own size', async () => {
    const fromPng = await reencodeImage(await png(), { ...rules, types: [...rules.types] });
    expect(fromPng).toMatchObject({ type: 'image/png', width: 40, height: 30 });
    expect((await sharp(fromPng.bytes).metadata()).format).toBe('png');
    const webp = await sharp(await png(20, 10))
      .webp()
      .toBuffer();
    expect(await reencodeImage(webp, { ...rules, types: [...rules.types] })).toMatchObject({ type: 'image/webp', width: 20, height: 10 });
  });

  it('drops the metadata the sender put in', async () => {
    const withExif = await sharp(await png())
      .withMetadata({ exif: { IFD0: { Copyright: 'someone' } } })
      .jpeg()
      .toBuffer();
    const out = await reencodeImage(withExif, { ...rules, types: ['image/jpeg'] });
    expect((await sharp(out.bytes).metadata()).exif).toBeUndefined();
  });

  it('refuses what is not a whole image of an allowed type, too long, or too large a side', async () => {
    const refuse = (bytes: Buffer, extra = {}) =>
      expect(reencodeImage(bytes, { ...rules, types: [...rules.types], ...extra })).rejects.toBeInstanceOf(ImageRefused);
    await refuse(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'));
    await refuse(Buffer.from('not an image at all'));
    await refuse(Buffer.alloc(0));
    await refuse(
      await sharp(await png())
        .jpeg()
        .toBuffer(),
    );
    const whole = await png(300, 300);
    await refuse(whole.subarray(0, Math.floor(whole.length / 2)));
    await refuse(whole, { maxBytes: 100 });
    await refuse(await png(50, 20), { maxSide: 40 });
  });
});

describe('a decompression bomb (security-3 H1)', () => {
  const rss = () => process.memoryUsage().rss;

  it('refuses an 8192² lossless WebP of under 3 KB on its header, before decoding a pixel', async () => {
    const bomb = webpBomb(8192);
    expect(bomb.length).toBeLessThan(4000);
    // The rules the room used for screenshots before: only the side was bounded, at 8192.
    const before = rss();
    const err = await reencodeImage(bomb, { types: ['image/png', 'image/webp'], maxBytes: 3 * 1024 * 1024, maxSide: 8192 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ImageRefused);
    expect((err as Error).message).toMatch(/8192×8192 pixels in \d+ bytes.*at most 1000 pixels a byte/);
    // Decoding it took +522 MB; reading its header takes next to nothing.
    expect(rss() - before).toBeLessThan(64 * 1024 * 1024);
    expect(decodeSlots.load()).toEqual({ running: 0, waiting: 0 });
  }, 30_000);

  it('refuses a screenshot past 16 MP in all even within 4096 a side, and a 4096² bomb', async () => {
    const wide = await reencodeImage(await png(4096, 4096), { ...screenshotRules(3_000_000), maxPixels: 4000 * 4000 }).catch(
      (e: unknown) => e,
    );
    expect((wide as Error).message).toMatch(/at most 16000000 pixels in all/);
    await expect(reencodeImage(webpBomb(4096), screenshotRules(3_000_000))).rejects.toThrow(/pixels a byte/);
  }, 30_000);

  it('takes a small flat image whatever its pixels per byte, and shrinks a large one to its stored side as it decodes', async () => {
    const flat = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#fff' } })
      .webp({ lossless: true })
      .toBuffer();
    expect((512 * 512) / flat.length).toBeGreaterThan(1000);
    expect(await reencodeImage(flat, screenshotRules(3_000_000))).toMatchObject({ width: 512, height: 512 });
    const big = await sharp({
      create: { width: 3000, height: 2000, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 30 } },
    })
      .jpeg()
      .toBuffer();
    expect(await reencodeImage(big, { types: ['image/jpeg'], maxBytes: 10_000_000, maxSide: 4096, storedSide: 1024 })).toMatchObject({
      type: 'image/jpeg',
      width: 1024,
      height: 683,
    });
  }, 30_000);
});

describe('the decode slot between clients (security review 4, L6)', () => {
  it('one client posting back to back holds one decode and one place in line; another client is served next', async () => {
    const heavy = await sharp({
      create: { width: 2400, height: 2400, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 30 } },
    })
      .jpeg()
      .toBuffer();
    const heavyRules = { types: ['image/jpeg' as const], maxBytes: 20_000_000, maxSide: 4096 };
    const done: string[] = [];
    const flood = Array.from({ length: 8 }, (_, i) =>
      reencodeImage(heavy, heavyRules, 'flooder').then(
        () => done.push(`flooder ${i}`),
        (err: unknown) => err,
      ),
    );
    const other = reencodeImage(await png(), rules as never, 'viewer-b').then(() => done.push('viewer-b'));
    const refusals = (await Promise.all(flood)).filter((r) => typeof r !== 'number');
    await other;
    // The flood: one decoding and one waiting; the rest told to come back, with the queue's room left to others.
    expect(refusals).toHaveLength(6);
    for (const r of refusals) expect(r).toMatchObject({ status: 503, reason: 'unavailable', extra: { retryAfter: 2 } });
    // The other client's one picture ran as soon as the slot was free: before the flooder's second.
    expect(done.map((d) => d.replace(/ \d+$/, ''))).toEqual(['flooder', 'viewer-b', 'flooder']);
    expect(decodeSlots.load()).toEqual({ running: 0, waiting: 0 });
  }, 60_000);
});
