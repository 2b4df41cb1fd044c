import { describe, expect, it } from 'vitest';
import { transparent } from './canvas-color.js';
import { isHash } from './room-messages.js';
import { ringStyle } from './ring.js';
import { contextOptions } from './webgl-keep.js';

describe('a colour that paints nothing', () => {
  it('is none, transparent, or of alpha 0', () => {
    for (const color of [null, undefined, '', 'transparent', 'rgba(0, 0, 0, 0)', 'rgba(255,255,255,0.0)', 'rgb(0 0 0 / 0)'])
      expect(transparent(color)).toBe(true);
  });

  it('is not a colour that shows, however faint', () => {
    for (const color of ['rgb(255, 255, 255)', 'rgba(0, 0, 0, 0.5)', 'rgba(0, 0, 0, 0.05)', 'rgb(0 0 0 / 0.2)'])
      expect(transparent(color)).toBe(false);
  });
});

describe('a WebGL context', () => {
  it("keeps its drawing, with the page's own options", () => {
    expect(contextOptions('webgl', undefined)).toEqual({ preserveDrawingBuffer: true });
    expect(contextOptions('webgl2', { alpha: false })).toEqual({ alpha: false, preserveDrawingBuffer: true });
    expect(contextOptions('experimental-webgl', 'odd')).toEqual({ preserveDrawingBuffer: true });
  });

  it('is the only kind touched', () => {
    const options = { alpha: false };
    expect(contextOptions('2d', options)).toBe(options);
    expect(contextOptions('webgpu', undefined)).toBeUndefined();
  });
});

describe('the ring', () => {
  it('goes 6 px around the element, in document coordinates', () => {
    expect(ringStyle({ top: 100, left: 20, width: 50, height: 10 }, { x: 0, y: 300 })).toMatchObject({
      left: '14px',
      top: '394px',
      width: '62px',
      height: '22px',
      position: 'absolute',
      pointerEvents: 'none',
    });
  });
});

describe('a hash a step moves to', () => {
  it('is a string that starts with #', () => {
    expect(isHash('#/tag/op')).toBe(true);
    expect(isHash('/tag/op')).toBe(false);
    expect(isHash(7)).toBe(false);
  });
});
