import { describe, expect, it } from 'vitest';
import { daysToRoll } from './event-days.job.js';

describe('daysToRoll', () => {
  it('rolls yesterday again when it was the last day rolled, and nothing of today', () => {
    expect(daysToRoll('2026-03-02', '2026-03-01')).toEqual(['2026-03-01']);
    expect(daysToRoll('2026-03-02', '2026-03-02')).toEqual(['2026-03-01']);
  });
  it('catches up on the days after the last one rolled, across a month end', () => {
    expect(daysToRoll('2026-03-02', '2026-02-26')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01']);
  });
  it('starts at yesterday when nothing was rolled or the last roll is older than the catch-up window', () => {
    expect(daysToRoll('2026-03-02', null)).toEqual(['2026-03-01']);
    expect(daysToRoll('2026-03-02', '2025-01-01')).toEqual(['2026-03-01']);
  });
});
