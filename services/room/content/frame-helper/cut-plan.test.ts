import { describe, expect, it } from 'vitest';
import { meetsViewport, standInDeclarations } from './cut-plan.js';

describe('what the picture keeps of a heavy page', () => {
  it('keeps a box that meets the viewport, give or take 64 px', () => {
    expect(meetsViewport(10, 10, 100, 100, 800, 600)).toBe(true);
    expect(meetsViewport(-150, 10, 100, 100, 800, 600)).toBe(true); // 50 px off: a shadow may show
    expect(meetsViewport(850, 10, 100, 100, 800, 600)).toBe(true);
    expect(meetsViewport(10, 700, 100, 100, 800, 600)).toBe(false);
    expect(meetsViewport(10, -300, 100, 100, 800, 600)).toBe(false);
  });

  it('keeps a box of no size only if its overflow has some', () => {
    expect(meetsViewport(10, 10, 0, 0, 800, 600)).toBe(false);
    expect(meetsViewport(10, 10, 0, 20, 800, 600)).toBe(true);
  });
});

describe('a stand-in for what was left out', () => {
  it("takes the element's room in its parent's layout and shows nothing", () => {
    const style = {
      display: 'flex',
      margin: '4px 0px',
      float: 'none',
      clear: 'none',
      order: '2',
      alignSelf: 'auto',
      gridRow: 'auto',
      gridColumn: '1 / 3',
    };
    const declarations = standInDeclarations(style, 120, 30.5).split(';');
    expect(declarations).toEqual(
      expect.arrayContaining(['display:flex', 'width:120px', 'height:30.5px', 'margin:4px 0px', 'order:2', 'grid-column:1 / 3']),
    );
    expect(declarations).toEqual(
      expect.arrayContaining(['visibility:hidden', 'overflow:hidden', 'padding:0', 'border:0', 'position:static']),
    );
  });
});
