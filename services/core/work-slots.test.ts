import { describe, expect, it } from 'vitest';
import { Refusal } from './errors.js';
import { workSlots } from './work-slots.js';

// The process-wide bound on heavy work (images.ts decodes under it): one runs, a few wait, and
// the next is told to come back (503 unavailable with retryAfter) instead of queueing without end.

describe('workSlots', () => {
  it('runs one at a time, queues three, refuses the fifth with 503 and Retry-After, and frees its slots', async () => {
    const slots = workSlots({ running: 1, waiting: 3, retryAfter: 2, what: 'images being read' });
    const order: number[] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const jobs = [0, 1, 2, 3].map((i) =>
      slots.run(async () => {
        order.push(i);
        if (i === 0) await gate;
        return i;
      }),
    );
    expect(slots.load()).toEqual({ running: 1, waiting: 3 });
    const fifth = await slots.run(async () => 4).catch((e: unknown) => e);
    expect(fifth).toBeInstanceOf(Refusal);
    expect(fifth).toMatchObject({ status: 503, reason: 'unavailable', extra: { retryAfter: 2 } });
    open();
    expect(await Promise.all(jobs)).toEqual([0, 1, 2, 3]);
    expect(order).toEqual([0, 1, 2, 3]);
    expect(slots.load()).toEqual({ running: 0, waiting: 0 });
    // A failing job gives its slot back too.
    await expect(
      slots.run(async () => {
        throw new Error('bad');
      }),
    ).rejects.toThrow('bad');
    expect(await slots.run(async () => 'after')).toBe('after');
  });
});
