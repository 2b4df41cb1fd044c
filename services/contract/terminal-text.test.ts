import { describe, expect, it } from 'vitest';
import { terminalSafe } from './terminal-text.js';

describe('terminalSafe', () => {
  it('keeps words, \\n and \\t, and drops whole escape sequences with their parameters', () => {
    expect(terminalSafe('a\tb\nc')).toBe('a\tb\nc');
    expect(terminalSafe('\x1b[2J\x1b[1;31mred\x1b[0m')).toBe('red');
    expect(terminalSafe('\x1b]8;;https://evil.example/\x07click\x1b]8;;\x1b\\')).toBe('click');
    expect(terminalSafe('\x1bPq#0;2;0;0;0\x1b\\after')).toBe('after');
    expect(terminalSafe('\x1bcreset')).toBe('reset');
    expect(terminalSafe('\x9b2J\x9d0;title\x9cC1')).toBe('C1');
  });

  it('drops what is left: a lone ESC, an unended string opener, CR, BEL, DEL and every other C0 and C1', () => {
    expect(terminalSafe('line\r\nnext\rover')).toBe('line\nnextover');
    expect(terminalSafe('\x1b]8;;never ended')).toBe('8;;never ended');
    expect(terminalSafe('end\x1b')).toBe('end');
    expect(terminalSafe('\x00\x07\x08\x7f\x85\x9fok')).toBe('ok');
    expect(terminalSafe('héllo — ünïcode ✓')).toBe('héllo — ünïcode ✓');
  });

  it('drops the bidirectional controls that reorder what a terminal shows (Trojan Source)', () => {
    expect(terminalSafe('access\u202e\u2066 level = user\u2069\u2066')).toBe('access level = user');
    expect(terminalSafe('a\u200eb\u200fc\u061cd\u202ae\u202cf\u2067g\u2068h')).toBe('abcdefgh');
    expect(terminalSafe('שלום world')).toBe('שלום world');
  });
});
