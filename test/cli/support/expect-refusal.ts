import { expect } from 'vitest';
import { refusalLines, type PitchResult } from './pitch.js';

/**
 * A refusal as the issue asks for it: exit 1, nothing on stdout, one or two plain lines on stderr
 * whose first names the cause, and no stack trace.
 */
export function expectRefusal(result: PitchResult, cause: RegExp): string[] {
  const lines = refusalLines(result.stderr);
  expect(result.code, result.stderr).toBe(1);
  expect(result.stdout).toBe('');
  expect(lines.length, result.stderr).toBeGreaterThanOrEqual(1);
  expect(lines.length, result.stderr).toBeLessThanOrEqual(2);
  expect(lines[0]).toMatch(cause);
  expect(result.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  return lines;
}
