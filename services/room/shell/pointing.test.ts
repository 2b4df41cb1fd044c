import { describe, expect, it } from 'vitest';
import { elementBox, overlaps } from './pointing.js';

describe('keeping the tour card off the ringed element', () => {
  it("places the element in the room by its frame's box", () => {
    expect(elementBox({ top: 50, left: 10 }, { top: 100, left: 20, width: 30, height: 40 })).toEqual({
      top: 150,
      bottom: 190,
      left: 30,
      right: 60,
    });
  });

  it('moves the card only when it covers the element', () => {
    const card = { top: 500, bottom: 700, left: 0, right: 400 };
    expect(overlaps(card, { top: 650, bottom: 680, left: 100, right: 200 })).toBe(true);
    expect(overlaps(card, { top: 100, bottom: 200, left: 100, right: 200 })).toBe(false);
    // Touching edges do not cover.
    expect(overlaps(card, { top: 700, bottom: 720, left: 100, right: 200 })).toBe(false);
  });
});
