import { describe, expect, it } from 'vitest';
import { guardDecision } from './host-guard.js';

describe('guardDecision', () => {
  it('installs the guard whenever it can, unless turned off', () => {
    expect(guardDecision('auto', true)).toEqual({ install: true, copies: true });
    expect(guardDecision('on', true)).toEqual({ install: true, copies: true });
  });

  it('auto without the means to install: no copies, and says why', () => {
    const d = guardDecision('auto', false);
    expect(d).toMatchObject({ install: false, copies: false });
    expect(d.refusal).toMatch(/host guard not installed/);
  });

  it('on without the means to install: the runner does not start', () => {
    expect(guardDecision('on', false)).toMatchObject({
      install: false,
      copies: false,
      fatal: expect.stringMatching(/needs root and iptables/),
    });
  });

  it('off, on purpose: copies run unguarded, with a warning', () => {
    for (const able of [true, false]) {
      const d = guardDecision('off', able);
      expect(d).toMatchObject({ install: false, copies: true });
      expect(d.warning).toMatch(/RUNNER_HOST_GUARD=off/);
    }
  });
});
