import { describe, expect, it } from 'vitest';
import { encodeWithin } from './encode.js';

/** A canvas whose pictures are of the given sizes by type (a type missing: the browser gives PNG). */
function canvas(sizes: Record<string, number[]>) {
  const asked: [string, number | undefined][] = [];
  return {
    asked,
    width: 320,
    height: 200,
    toBlob(done: (blob: Blob | null) => void, type: string, quality?: number) {
      asked.push([type, quality]);
      const left = sizes[type];
      const size = left ? left.shift()! : sizes['image/png'][0];
      done(new Blob([new Uint8Array(size)], { type: left ? type : 'image/png' }));
    },
  };
}

describe("the picture's bytes", () => {
  it('are PNG when the PNG fits', async () => {
    const c = canvas({ 'image/png': [100] });
    expect(await encodeWithin(c, 100)).toMatchObject({ ok: true, imageType: 'image/png', width: 320, height: 200 });
    expect(c.asked).toEqual([['image/png', undefined]]);
  });

  it('are WebP at 0.8, then 0.6, when the PNG is too large', async () => {
    const c = canvas({ 'image/png': [500], 'image/webp': [300, 90] });
    const answer = await encodeWithin(c, 100);
    expect(answer).toMatchObject({ ok: true, imageType: 'image/webp' });
    expect(answer.ok && answer.blob.size).toBe(90);
    expect(c.asked).toEqual([
      ['image/png', undefined],
      ['image/webp', 0.8],
      ['image/webp', 0.6],
    ]);
  });

  it('are too large when nothing fits, or the browser has no WebP encoder', async () => {
    expect(await encodeWithin(canvas({ 'image/png': [500], 'image/webp': [300, 200] }), 100)).toEqual({ ok: false, note: 'too-large' });
    expect(await encodeWithin(canvas({ 'image/png': [500] }), 100)).toEqual({ ok: false, note: 'too-large' });
  });

  it('fail when the canvas gives nothing', async () => {
    const empty = { width: 1, height: 1, toBlob: (done: (blob: Blob | null) => void) => done(null) };
    await expect(encodeWithin(empty, 100)).rejects.toThrow('no blob');
  });
});
