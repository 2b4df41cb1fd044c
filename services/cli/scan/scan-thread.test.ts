import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { linterHere, startLintThread } from './scan-thread.js';

// The scan's rules in a thread of their own (a deploy starts one as it starts): the same findings
// as in this thread, and once the thread is gone every text is still scanned, here.

const key = () => `${randomBytes(24).toString('base64url')}7q`;
const text = () => `export const region = "eu-west-1";\nconst STRIPE_SECRET_KEY = "${key()}";\nconst id = "AKIA${'QWERTYUIOPASDFGH'}";\n`;

describe('the scan thread', () => {
  it('loads the rules in a thread of its own and finds what this thread finds', async () => {
    const linter = startLintThread();
    try {
      expect(await linter.ready).toBe(true);
      const source = text();
      const there = await linter.lint('src/settings.ts', source);
      expect(there.map((hit) => hit.line).sort()).toEqual([2, 3]);
      expect(there).toEqual(await linterHere.lint('src/settings.ts', source));
      // Texts asked together are each answered with their own findings.
      const many = await Promise.all(['a.ts', 'b.ts', 'c.ts'].map((where, i) => linter.lint(where, i === 1 ? source : 'const a = 1;\n')));
      expect(many.map((hits) => hits.length)).toEqual([0, there.length, 0]);
    } finally {
      await linter.close();
    }
  });

  it('scans in this thread once its own has ended', async () => {
    const linter = startLintThread();
    await linter.close();
    const found = await linter.lint('config/.env', `DB_PASSWORD=${key()}\n`);
    expect(found.map((hit) => hit.line)).toEqual([1]);
  });
});
