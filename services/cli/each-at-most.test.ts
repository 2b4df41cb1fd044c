import { describe, expect, it } from 'vitest';
import { eachAtMost } from './each-at-most.js';

const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

describe('eachAtMost', () => {
  it('runs every job, never more than the limit at once', async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    const jobs = Array.from({ length: 10 }, (_, i) => async () => {
      running++;
      most = Math.max(most, running);
      await tick();
      running--;
      done.push(i);
    });
    await eachAtMost(3, jobs);
    expect(done.sort((a, b) => a - b)).toEqual([...Array(10).keys()]);
    expect(most).toBe(3);
  });

  it('starts nothing after a failure, lets the running ones end, then throws the first failure', async () => {
    const started: number[] = [];
    let ended = 0;
    const jobs = Array.from({ length: 10 }, (_, i) => async () => {
      started.push(i);
      // Job 1 fails while job 0 still runs.
      await tick(i === 0 ? 30 : 5);
      if (i === 1) throw new Error('job 1 failed');
      ended++;
    });
    await expect(eachAtMost(2, jobs)).rejects.toThrow('job 1 failed');
    expect(started).toEqual([0, 1]);
    expect(ended).toBe(1);
  });
});
