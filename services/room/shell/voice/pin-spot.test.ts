import { describe, expect, it } from 'vitest';
import { fractionIn, markBox, pinSpot } from './pin-spot.js';

const size = { width: 400, height: 800 };

describe('where a comment is pinned', () => {
  it('is where the pointer is in the frame, held inside it', () => {
    const box = { left: 100, top: 50, width: 400, height: 800 };
    expect(fractionIn(box, 300, 450)).toEqual({ x: 0.5, y: 0.5 });
    expect(fractionIn(box, 0, 2_000)).toEqual({ x: 0, y: 1 });
  });

  it('is a point for a click or a move of a few pixels', () => {
    expect(pinSpot({ x: 0.25, y: 0.5 }, { x: 0.25, y: 0.5 }, size)).toEqual({ position: { x: 0.25, y: 0.5 }, area: null });
    // 5 px across, 4 px down: still a click, at where the press began.
    expect(pinSpot({ x: 0.25, y: 0.5 }, { x: 0.2625, y: 0.505 }, size)).toEqual({ position: { x: 0.25, y: 0.5 }, area: null });
  });

  it('is an area for a drag, whichever way it went, rounded to four places', () => {
    expect(pinSpot({ x: 0.5, y: 0.5 }, { x: 0.25, y: 0.25 }, size)).toEqual({
      position: null,
      area: { x: 0.25, y: 0.25, width: 0.25, height: 0.25 },
    });
    expect(pinSpot({ x: 1 / 3, y: 0.1 }, { x: 2 / 3, y: 0.1 }, size).area).toEqual({ x: 0.3333, y: 0.1, width: 0.3333, height: 0 });
  });

  it("draws its mark in pixels from the frame's top left", () => {
    expect(markBox({ x: 0.5, y: 0.5 }, { x: 0.25, y: 0.75 }, size)).toEqual({
      left: '100px',
      top: '400px',
      width: '100px',
      height: '200px',
    });
  });
});
