import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { fakePng, imageOfLength, jpegWithGps, plainImage, pngBomb, type Kind } from '../../../test/fixtures/images.js';
import { ImageRefused, logoRules, reencodeImage } from './images.js';

// The logo's limits (spec 2.8, 8) at their edges, with generated files.

const kinds: Kind[] = ['png', 'jpeg', 'webp'];
const refusedWith = async (bytes: Buffer, words: RegExp) => {
  const err = await reencodeImage(bytes, logoRules).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ImageRefused);
  expect((err as Error).message).toMatch(words);
};

describe('a logo', () => {
  it.each(kinds)(
    'takes a %s at exactly 256 KB and refuses one byte more',
    async (kind) => {
      const atLimit = await imageOfLength(kind, 256 * 1024);
      expect((await reencodeImage(atLimit, logoRules)).type).toBe(`image/${kind}`);
      // One byte more (after the image's end, where decoders stop reading): refused on length alone.
      const over = Buffer.concat([atLimit, Buffer.from([0])]);
      await refusedWith(over, /262145 bytes; at most 262144/);
    },
    30_000,
  );

  it.each(kinds)(
    'takes a %s at 16×16, 2048×2048 and 8:1, and refuses one pixel past each',
    async (kind) => {
      for (const [w, h] of [
        [16, 16],
        [2048, 2048],
        [2048, 256],
        [16, 128],
      ]) {
        expect(await reencodeImage(await plainImage(kind, w, h), logoRules)).toMatchObject({ width: w, height: h });
      }
      await refusedWith(await plainImage(kind, 15, 16), /at least 16 pixels/);
      await refusedWith(await plainImage(kind, 16, 15), /at least 16 pixels/);
      await refusedWith(await plainImage(kind, 2049, 2048), /at most 2048 pixels/);
      await refusedWith(await plainImage(kind, 2048, 2049), /at most 2048 pixels/);
      await refusedWith(await plainImage(kind, 2048, 255), /at most 8 times/);
      await refusedWith(await plainImage(kind, 16, 129), /at most 8 times/);
    },
    30_000,
  );

  it('judges the type by the bytes: a PNG is a PNG whatever it was sent as', async () => {
    // The api never reads the declared type; here there is none to read.
    expect((await reencodeImage(await plainImage('png', 32, 32), logoRules)).type).toBe('image/png');
    await refusedWith(
      await sharp({ create: { width: 32, height: 32, channels: 3, background: '#000' } })
        .gif()
        .toBuffer(),
      /not an image of type/,
    );
    await refusedWith(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32"/>'), /not an image of type/);
  });

  it('refuses a file that claims PNG but is not one', async () => {
    await refusedWith(fakePng(), /not an image of type/);
  });

  it('gives a JPEG back without its EXIF and GPS position', async () => {
    const sent = await jpegWithGps();
    const exif = (await sharp(sent).metadata()).exif!;
    // The GPS IFD pointer (tag 0x8825) is there before, in either byte order.
    expect(exif.includes(Buffer.from([0x88, 0x25])) || exif.includes(Buffer.from([0x25, 0x88]))).toBe(true);
    const kept = await reencodeImage(sent, logoRules);
    expect(kept.type).toBe('image/jpeg');
    const meta = await sharp(kept.bytes).metadata();
    expect(meta.exif).toBeUndefined();
    expect(kept.bytes.includes(Buffer.from('PhoneCo'))).toBe(false);
  });

  it('refuses a decompression bomb on its header, without decoding it', async () => {
    const bomb = pngBomb(60_000);
    expect(bomb.length).toBeLessThan(200);
    const before = process.memoryUsage().rss;
    const started = performance.now();
    await refusedWith(bomb, /60000×60000 pixels; at most 2048/);
    // 60000² RGB would be 10.8 GB decoded; a refusal on the header takes milliseconds and no memory.
    expect(performance.now() - started).toBeLessThan(500);
    expect(process.memoryUsage().rss - before).toBeLessThan(50 * 1024 * 1024);
  });
});
