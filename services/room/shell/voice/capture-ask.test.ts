import { describe, expect, it } from 'vitest';
import { pictureDeadline, pictureOf } from './capture-ask.js';

describe('how long a picture may take', () => {
  it("is the frame's budget and 2 s more, 40 s at most", () => {
    expect(pictureDeadline(8_000)).toBe(10_000);
    expect(pictureDeadline(20_000)).toBe(22_000);
    expect(pictureDeadline(60_000)).toBe(40_000);
  });

  it('stays 10 s when the frame says no budget', () => {
    expect(pictureDeadline(undefined)).toBeNull();
    expect(pictureDeadline(0)).toBeNull();
    expect(pictureDeadline('soon')).toBeNull();
  });
});

describe("a frame's answer", () => {
  it('is the picture with its type', () => {
    const blob = new Blob(['x'], { type: 'image/png' });
    expect(pictureOf({ ok: true, blob, imageType: 'image/webp' })).toEqual({ blob, type: 'image/webp' });
    expect(pictureOf({ ok: true, blob })).toEqual({ blob, type: 'image/png' });
  });

  it('is why there is none, failed when the frame does not say', () => {
    expect(pictureOf({ ok: false, note: 'tainted' })).toEqual({ note: 'tainted' });
    expect(pictureOf({ ok: true })).toEqual({ note: 'failed' });
  });
});
