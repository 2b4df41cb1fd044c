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

describe('a hostile page', () => {
  it('judges a page nested far deeper than a call stack goes', () => {
    const depth = 20_000;
    const deep = `${'<div>'.repeat(depth)}<a id="buy">Buy</a>${'</div>'.repeat(depth)}`;
    expect(selectorInHtml('div div #buy', deep)).toBe('found');
    expect(selectorInHtml('div span #buy', deep)).toBe('missing');
  });

  it('takes a long selector over a nested page in one pass', () => {
    // The recursive walk tried both branches at every matching element: 2^20 paths here.
    const deep = `${'<div>'.repeat(60)}<p></p>${'</div>'.repeat(60)}`;
    expect(selectorInHtml(`${'div '.repeat(20)}span`, deep)).toBe('missing');
    expect(selectorInHtml(`${'div '.repeat(20)}p`, deep)).toBe('found');
  });

  it('matches each compound at the highest ancestor that can take it', () => {
    const page = '<section class="a"><section class="a b"><p class="c"></p></section></section>';
    expect(selectorInHtml('.a .b .c', page)).toBe('found');
    expect(selectorInHtml('.b .a .c', page)).toBe('missing');
    expect(selectorInHtml('section section p', page)).toBe('found');
    expect(selectorInHtml('section section section p', page)).toBe('missing');
  });
});
