import { describe, expect, it } from 'vitest';
import { addressValue, headerValue, oneLine } from './mail-headers.js';

// Issue 45: no mail header can be split by a line break someone typed; non-ASCII goes as RFC 2047.

const decode = (value: string) =>
  value
    .split(' ')
    .map((w) => Buffer.from(/^=\?UTF-8\?B\?(.*)\?=$/.exec(w)![1], 'base64').toString('utf8'))
    .join('');

describe('mail headers', () => {
  it('are one line without control characters', () => {
    expect(oneLine('x\r\nBcc: evil@x')).toBe('x Bcc: evil@x');
    expect(headerValue('Deals:\u0000a\tb\u0085c\u2028d')).toBe('Deals: a b c d');
    expect(headerValue('plain ASCII stays')).toBe('plain ASCII stays');
  });

  it('encode non-ASCII as RFC 2047 words under 75 characters, split between characters', () => {
    const text = `Zoë opened 😀 ${'é'.repeat(60)}\r\nBcc: evil@x`;
    const value = headerValue(text);
    expect(value).not.toMatch(/[\r\n]/);
    for (const word of value.split(' ')) {
      expect(word).toMatch(/^=\?UTF-8\?B\?[A-Za-z0-9+/=]+\?=$/);
      expect(word.length).toBeLessThan(76);
    }
    expect(decode(value)).toBe(oneLine(text));
  });

  it('keep an address, encoding only its display name', () => {
    expect(addressValue('Demo Rooms <rooms@example.com>')).toBe('Demo Rooms <rooms@example.com>');
    expect(addressValue('Zoë\r\n <z@example.com>')).toBe(`=?UTF-8?B?${Buffer.from('Zoë').toString('base64')}?= <z@example.com>`);
    expect(addressValue('a@example.com\r\nBcc: evil@x')).toBe('a@example.com Bcc: evil@x');
  });
});
