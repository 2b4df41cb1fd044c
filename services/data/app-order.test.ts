import { describe, expect, it } from 'vitest';
import { effectiveAppOrder, namedAppOrder } from './app-order.js';

describe('app order', () => {
  const manifest = ['web', 'admin', 'phone', 'api'];

  it('keeps the named apps the manifest knows, once each, in the order given', () => {
    expect(namedAppOrder(['phone', 'ghost', 'web', 'phone'], manifest)).toEqual(['phone', 'web']);
    expect(namedAppOrder(['ghost'], manifest)).toBeNull();
    expect(namedAppOrder([], manifest)).toBeNull();
  });

  it('shows the named apps first, then the rest in manifest order', () => {
    expect(effectiveAppOrder(['phone', 'web'], manifest)).toEqual(['phone', 'web', 'admin', 'api']);
    expect(effectiveAppOrder(null, manifest)).toBeNull();
  });

  it('follows a new manifest: dropped apps leave, added ones join in manifest order', () => {
    expect(effectiveAppOrder(['phone', 'web'], ['new', 'web', 'api'])).toEqual(['web', 'new', 'api']);
    expect(effectiveAppOrder(['phone', 'web'], null)).toEqual(['phone', 'web']);
  });
});
