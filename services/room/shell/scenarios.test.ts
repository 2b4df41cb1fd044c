import { describe, expect, it } from 'vitest';
import { callsDetail, controlAsk } from './scenarios.js';

describe('the scenario controls', () => {
  it('ask for the reset or the scenario, named as the viewer reads it', () => {
    expect(controlAsk('reset', undefined, ' Reset ')).toEqual({ name: 'Resetting the demo', ask: { reset: true } });
    expect(controlAsk('scenario', 'late', '\n  Make it late  ')).toEqual({ name: 'Make it late', ask: { scenario: 'late' } });
  });

  it('show the builder each call and its answer', () => {
    expect(
      callsDetail([
        { call: 'POST /seed', ok: true, status: 201 },
        { call: 'POST /late', ok: false, error: 'timed out' },
        { call: 'GET /', ok: false },
      ] as never),
    ).toEqual(['✓ POST /seed (201)', '✗ POST /late (timed out)', '✗ GET /']);
  });
});
