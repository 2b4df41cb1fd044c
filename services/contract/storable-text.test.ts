import { describe, expect, it } from 'vitest';
import { storableText } from './storable-text.js';

describe('storableText', () => {
  it('drops NUL, other control characters and lone surrogates, and keeps tabs, line breaks and real pairs', () => {
    expect(storableText('a\u0000b\u0007c\u001bd\u007fe\u0085f')).toBe('abcdef');
    expect(storableText('x\uD800y\uDC00z')).toBe('xyz');
    expect(storableText('end\uD83D')).toBe('end');
    expect(storableText('line\tone\r\nline two 😀 Zoë')).toBe('line\tone\r\nline two 😀 Zoë');
  });
});
