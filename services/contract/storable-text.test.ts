import { describe, expect, it } from 'vitest';
import { nameText, publicLines, storableName, storableText } from './storable-text.js';

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

  it('drops bidi embeddings, overrides and isolates and the invisible spaces, and keeps joiners a script needs', () => {
    expect(storableName('\u202Enigol laPyaP')).toBe('nigol laPyaP');
    expect(storableName('a\u202Ab\u202Bc\u202Cd\u202De\u2066f\u2067g\u2068h\u2069i')).toBe('abcdefghi');
    expect(storableName('Pay\u200BPal\u2060 \uFEFFInc\u180E')).toBe('PayPal Inc');
    expect(storableName('👩\u200D💻 می\u200Cخواهم')).toBe('👩\u200D💻 می\u200Cخواهم');
    expect(nameText(60).safeParse('\u202E\u200B ').success).toBe(false);
  });
});

describe('publicLines', () => {
  it('keeps line breaks and drops bidi controls and invisible spaces', () => {
    expect(publicLines(500).parse(' \u202Enigol laPyaP\nsecond\u200B line ')).toBe('nigol laPyaP\nsecond line');
    expect(publicLines(5).safeParse('\u200B'.repeat(10) + 'abc').success).toBe(true);
  });
});
