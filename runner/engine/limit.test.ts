import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createLimit } from './limit.js';

describe('engine call limit', () => {
  it('runs at most `size` tasks at once, in arrival order, whatever fails', async () => {
    const limit = createLimit(2);
    let active = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        limit(async () => {
          active++;
          most = Math.max(most, active);
          order.push(i);
          await sleep(5);
          active--;
          if (i % 3 === 0) throw new Error('engine said no');
        }),
      ),
    );
    expect(most).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});
