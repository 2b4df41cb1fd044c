import { describe, expect, it } from 'vitest';
import type { Refusal } from './errors.js';
import { checkSlug } from './slug-rules.js';

const reasonOf = (slug: string) => {
  try {
    checkSlug(slug);
    return 'ok';
  } catch (err) {
    return (err as Refusal).reason;
  }
};

describe('slug rules', () => {
  it.each([
    ['abc', 'ok'],
    ['a'.repeat(40), 'ok'],
    ['my-demo-2', 'ok'],
    ['1st-room', 'ok'],
    ['ab', 'format'],
    ['a'.repeat(41), 'format'],
    ['-abc', 'format'],
    ['abc-', 'format'],
    ['a--b', 'format'],
    ['Abc', 'format'],
    ['ab_c', 'format'],
    ['ab c', 'format'],
    ['café', 'format'],
    ['api', 'reserved'],
    ['www', 'reserved'],
    ['admin', 'reserved'],
    ['rooms', 'reserved'],
    ['status', 'reserved'],
    ['paypal-demo', 'impersonation'],
    ['securebank', 'impersonation'],
    ['my-login', 'impersonation'],
    ['official-app', 'impersonation'],
    ['scam-room', 'banned'],
  ])('%s → %s', (slug, reason) => {
    expect(reasonOf(slug)).toBe(reason);
  });
});
