import { describe, expect, it } from 'vitest';
import { keyMatches, runnerKey } from './runner-key.js';

describe('runner key', () => {
  it('is derived from APP_SECRET, the same in room and runner, and differs per secret', () => {
    const a = runnerKey('aa'.repeat(32));
    expect(runnerKey('aa'.repeat(32))).toBe(a);
    expect(runnerKey('bb'.repeat(32))).not.toBe(a);
    expect(keyMatches(a, a)).toBe(true);
    expect(keyMatches(`${a}x`, a)).toBe(false);
    expect(keyMatches(undefined, a)).toBe(false);
    expect(keyMatches([a], a)).toBe(false);
  });
});
