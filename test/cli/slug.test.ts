import { describe, expect, it } from 'vitest';
import { checkSlug } from '../../services/core/rules/slug-rules.js';
import { slugFromName } from '../../services/cli/project/slug.js';

describe('slugFromName', () => {
  it('makes an address from a demo name', () => {
    expect(slugFromName('Acme Checkout Demo')).toBe('acme-checkout-demo');
    expect(slugFromName('  Café -- Crème!  ')).toBe('cafe-creme');
    expect(slugFromName('X')).toBe('x-demo');
    expect(slugFromName('日本')).toBe('demo');
  });

  it('keeps to 40 characters without a trailing hyphen', () => {
    const slug = slugFromName(`${'a'.repeat(39)} b`);
    expect(slug).toBe('a'.repeat(39));
    expect(slugFromName('a'.repeat(60))).toHaveLength(40);
  });

  it('gives a slug the platform accepts', () => {
    expect(slugFromName('My Great Démo!')).toBe('my-great-demo');
    expect(() => checkSlug(slugFromName('Acme -- Checkout  Flow'))).not.toThrow();
  });
});
