import { describe, expect, it } from 'vitest';
import { VisitClock } from './visit-clock.js';

/** A clock whose time and visibility the test moves. */
function clock(visible = true) {
  const at = { now: 0, visible };
  return {
    at,
    clock: new VisitClock(
      () => at.now,
      () => at.visible,
    ),
  };
}

describe("the visit clock (the beat's time)", () => {
  it('counts whole visible seconds per tab and keeps the fractions for the next flush', () => {
    const { at, clock: c } = clock();
    at.now = 2_500;
    expect(c.take('app')).toEqual({ time: { app: 2 } });
    at.now = 3_000;
    expect(c.take('app')).toEqual({ time: { app: 1 } });
  });

  it('gives the time so far to the tab that was in view when another is shown', () => {
    const { at, clock: c } = clock();
    at.now = 1_200;
    c.account('first');
    at.now = 4_000;
    expect(c.take('second')).toEqual({ time: { first: 1, second: 2 } });
    // The fifth of a second left on the first tab waits; the second's fractions add up.
    at.now = 5_000;
    expect(c.take('second')).toEqual({ time: { second: 1 } });
  });

  it('counts nothing while the room is hidden, from the moment it was seen hidden', () => {
    const { at, clock: c } = clock();
    at.now = 1_000;
    at.visible = false;
    c.account('app'); // the second so far counts; from here the room is hidden
    at.now = 60_000;
    at.visible = true;
    c.account('app'); // back: the hidden minute does not count
    at.now = 61_000;
    expect(c.take('app')).toEqual({ time: { app: 2 } });
  });

  it('counts nothing before a tab is shown, and says nothing under a second', () => {
    const { at, clock: c } = clock();
    at.now = 5_000;
    expect(c.take(null)).toEqual({ time: {} });
    at.now = 5_400;
    expect(c.take('app')).toEqual({ time: {} });
  });
});
