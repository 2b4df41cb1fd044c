import { describe, expect, it } from 'vitest';
import { csvField, csvRow } from './csv.js';

describe('csv', () => {
  it('quotes per RFC 4180 only when a field needs it, doubling its quotes', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a, b')).toBe('"a, b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(null)).toBe('');
    expect(csvField(-12.5)).toBe('-12.5');
  });

  it('keeps a text field that starts like a formula as text', () => {
    for (const f of ['=1+2', '+SUM(A1)', '-2', '@cmd', '\tx', '\rx']) expect(csvField(f).replace(/^"/, '')).toMatch(/^'/);
    expect(csvField('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    expect(csvField('a=b')).toBe('a=b');
  });

  it('ends each record with CRLF', () => {
    expect(csvRow(['a', 1, null])).toBe('a,1,\r\n');
  });
});
