import { describe, expect, it } from 'vitest';
import { tabAfter } from './tabs.js';

describe('the arrow keys along the tabs', () => {
  it('move right and left, round the ends', () => {
    expect(tabAfter(0, 'ArrowRight', 3)).toBe(1);
    expect(tabAfter(2, 'ArrowRight', 3)).toBe(0);
    expect(tabAfter(0, 'ArrowLeft', 3)).toBe(2);
    expect(tabAfter(1, 'ArrowLeft', 3)).toBe(0);
  });

  it('leave every other key alone', () => {
    expect(tabAfter(1, 'Enter', 3)).toBeNull();
    expect(tabAfter(1, 'ArrowDown', 3)).toBeNull();
  });
});
