import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { ImageRefused, reencodeImage } from './images.js';

const rules = { types: ['image/png', 'image/webp'] as const, maxBytes: 200_000, maxSide: 4000 };
const png = (width = 40, height = 30) => sharp({ create: { width, height, channels: 4, background: '#336699' } }).png().toBuffer();

describe('reencodeImage', () => {
  it('takes a PNG and a WebP, re-encoded in their own format at their own size', async () => {
    const fromPng = await reencodeImage(await png(), { ...rules, types: [...rules.types] });
    expect(fromPng).toMatchObject({ type: 'image/png', width: 40, height: 30 });
    expect((await sharp(fromPng.bytes).metadata()).format).toBe('png');
    const webp = await sharp(await png(20, 10)).webp().toBuffer();
    expect(await reencodeImage(webp, { ...rules, types: [...rules.types] })).toMatchObject({ type: 'image/webp', width: 20, height: 10 });
  });

  it('drops the metadata the sender put in', async () => {
    const withExif = await sharp(await png()).withMetadata({ exif: { IFD0: { Copyright: 'someone' } } }).jpeg().toBuffer();
    const out = await reencodeImage(withExif, { ...rules, types: ['image/jpeg'] });
    expect((await sharp(out.bytes).metadata()).exif).toBeUndefined();
  });

  it('refuses what is not a whole image of an allowed type, too long, or too large a side', async () => {
    const refuse = (bytes: Buffer, extra = {}) => expect(reencodeImage(bytes, { ...rules, types: [...rules.types], ...extra })).rejects.toBeInstanceOf(ImageRefused);
    await refuse(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'));
    await refuse(Buffer.from('not an image at all'));
    await refuse(Buffer.alloc(0));
    await refuse(await sharp(await png()).jpeg().toBuffer());
    const whole = await png(300, 300);
    await refuse(whole.subarray(0, Math.floor(whole.length / 2)));
    await refuse(whole, { maxBytes: 100 });
    await refuse(await png(50, 20), { maxSide: 40 });
  });
});
