import { describe, expect, it } from 'vitest';
import { nameText, storableName, storableText } from './storable-text.js';

describe('storableText', () => {
  it('drops NUL, other control characters and lone surrogates, and keeps tabs, line breaks and real pairs', () => {
    expect(storableText('a\u0000b\u0007c\u001bd\u007fe\u0085f')).toBe('abcdef');
    expect(storableText('x\uD800y\uDC00z')).toBe('xyz');
    expect(storableText('end\uD83D')).toBe('end');
    expect(storableText('line\tone\r\nline two 😀 Zoë')).toBe('line\tone\r\nline two 😀 Zoë');
  });
});

describe('storableName (issue 45)', () => {
  it('drops every control character, tab and line breaks too, and keeps the rest', () => {
    expect(storableName('x\r\nBcc: evil@x')).toBe('xBcc: evil@x');
    expect(storableName('a\tb\u0085c\u007fd\u2028e Zoë 😀')).toBe('abcd\u2028e Zoë 😀');
    expect(nameText(80).safeParse('\r\n\t').success).toBe(false);
    expect(nameText(80).parse('  Ada\r\n ')).toBe('Ada');
  });
});
