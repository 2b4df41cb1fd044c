import { describe, expect, it } from 'vitest';
import { selectorInHtml } from './point-selector.js';

const page = `<!doctype html><html><body><nav class="top bar"><a id="buy" class="btn primary" data-test="buy" href="/buy">Buy</a></nav><main><h1>Shop</h1></main></body></html>`;

describe('a step point in a page', () => {
  it('finds ids, tags, classes, attributes and descendants', () => {
    for (const selector of [
      '#buy',
      'a',
      'a#buy.btn.primary',
      '.btn',
      '[data-test]',
      '[data-test="buy"]',
      'nav a',
      '.top #buy',
      'main h1',
      '*',
    ]) {
      expect(selectorInHtml(selector, page), selector).toBe('found');
    }
  });

  it('says what is missing', () => {
    for (const selector of ['#sell', 'button', '.secondary', '[data-test=sell]', 'main a', 'h1 nav']) {
      expect(selectorInHtml(selector, page), selector).toBe('missing');
    }
  });

  it('does not judge what it cannot read', () => {
    for (const selector of ['nav > a', 'a:hover', 'h1 + p', 'a[href^="/b"]'])
      expect(selectorInHtml(selector, page), selector).toBe('unknown');
  });
});
