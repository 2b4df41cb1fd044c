import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../services/core/infra/log.js';
import { createBackgroundWork } from './background-work.js';

const log = createLogger({ name: 'test', level: 'silent' });

/** Background work on fake timers, and a pass asked for at most once a second that counts its runs. */
function passOnceASecond() {
  vi.useFakeTimers();
  const work = createBackgroundWork(log);
  const counted = { runs: 0 };
  const ask = work.atMostEvery(
    1_000,
    async () => {
      counted.runs++;
    },
    'pass',
  );
  return { work, ask, counted };
}

describe('a pass run at most once a period', () => {
  afterEach(() => vi.useRealTimers());

  it('runs at once, then once more when the period is over however many asked meanwhile', async () => {
    const { work, ask, counted } = passOnceASecond();
    ask();
    expect(counted.runs).toBe(1);
    for (let i = 0; i < 50; i++) ask(); // a crowd's copies ending
    await vi.advanceTimersByTimeAsync(999);
    expect(counted.runs).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(counted.runs).toBe(2); // the last ask is followed by a run
    await vi.advanceTimersByTimeAsync(5_000);
    expect(counted.runs).toBe(2);
    ask(); // long after: at once again
    expect(counted.runs).toBe(3);
    await work.close();
  });

  it('runs nothing asked for once closing has begun', async () => {
    const { work, ask, counted } = passOnceASecond();
    ask();
    ask(); // waits for the period
    await work.close();
    await vi.advanceTimersByTimeAsync(2_000);
    ask();
    expect(counted.runs).toBe(1);
  });
});
