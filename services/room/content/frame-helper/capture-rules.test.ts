import { describe, expect, it } from 'vitest';
import { budgetMs, encodeFailure, maxBytesOf, stoppedRender } from './capture-rules.js';

describe("the capture's budget", () => {
  it('is 8 s, a second more per 2,000 elements, 30 s at most', () => {
    expect(budgetMs(0)).toBe(8_000);
    expect(budgetMs(2_000)).toBe(9_000);
    expect(budgetMs(14_000)).toBe(15_000);
    expect(budgetMs(1_000_000)).toBe(30_000);
  });
});

describe('the size a picture must fit', () => {
  it("is the room's, or none when the room asked for none that makes sense", () => {
    expect(maxBytesOf(600_000)).toBe(600_000);
    expect(maxBytesOf('600000')).toBe(600_000);
    expect(maxBytesOf(0)).toBe(Infinity);
    expect(maxBytesOf(undefined)).toBe(Infinity);
  });
});

describe("a render the page's own policy stopped", () => {
  it('is a refused style element, or a refused data: image', () => {
    expect(stoppedRender([{ effectiveDirective: 'style-src-elem', blockedURI: 'inline' }])).toBe(true);
    expect(stoppedRender([{ effectiveDirective: 'img-src', blockedURI: 'data' }])).toBe(true);
  });

  it('is not a refused image from elsewhere, nor nothing refused', () => {
    expect(stoppedRender([{ effectiveDirective: 'img-src', blockedURI: 'https://cdn.example/a.png' }])).toBe(false);
    expect(stoppedRender([{ effectiveDirective: 'connect-src', blockedURI: 'data' }])).toBe(false);
    expect(stoppedRender([])).toBe(false);
  });

  it('tells a canvas that may not be read from any other failure', () => {
    expect(encodeFailure(Object.assign(new Error('tainted'), { name: 'SecurityError' }))).toBe('tainted');
    expect(encodeFailure(new Error('no blob'))).toBe('failed');
    expect(encodeFailure(null)).toBe('failed');
  });
});
