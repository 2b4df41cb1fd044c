import { describe, expect, it } from 'vitest';
import { Refusal } from './errors.js';
import { workSlots } from './work-slots.js';

// The process-wide bound on heavy work (images.ts decodes under it): one runs, a few wait, and
// the next is told to come back (503 unavailable with retryAfter) instead of queueing without end.

describe('workSlots', () => {
  it('runs one at a time, queues three, refuses the fifth with 503 and Retry-After, and frees its slots', async () => {
    const slots = workSlots({ running: 1, waiting: 3, retryAfter: 2, what: 'images being read' });
    const order: number[] = [];
    const { gate, open } = closedGate();
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

  it('is fair between clients: one that floods holds one slot and a short line, and another is served next (L6)', async () => {
    const slots = workSlots({ running: 1, waiting: 3, perClient: 1, retryAfter: 2, what: 'images being read' });
    const order: string[] = [];
    const { gate, open } = closedGate();
    const job = (name: string, client: string) =>
      slots.run(async () => {
        order.push(name);
        if (name === 'a0') await gate;
        return name;
      }, client);
    // The flood: one runs, one waits, the rest are refused at once, and the queue keeps room for others.
    const flood = ['a0', 'a1', 'a2', 'a3', 'a4'].map((name) => job(name, 'flooder').catch((e: unknown) => e));
    const other = job('b0', 'viewer-b');
    const third = job('c0', 'viewer-c');
    expect(slots.load()).toEqual({ running: 1, waiting: 3 });
    open();
    const results = await Promise.all(flood);
    expect(results.slice(0, 2)).toEqual(['a0', 'a1']);
    for (const refusedOne of results.slice(2)) expect(refusedOne).toMatchObject({ status: 503, reason: 'unavailable' });
    expect(await other).toBe('b0');
    expect(await third).toBe('c0');
    // Turns go round: the flooder queued first, but each of the others runs before its second.
    expect(order).toEqual(['a0', 'b0', 'c0', 'a1']);
  });

  it('takes turns in a round: a client with many waiting gives way after each of its own', async () => {
    const slots = workSlots({ running: 1, waiting: 10, perClient: 4, retryAfter: 2, what: 'pages being rendered' });
    const order: string[] = [];
    const { gate, open } = closedGate();
    const job = (name: string, client: string) =>
      slots.run(async () => {
        order.push(name);
        if (name === 'first') await gate;
      }, client);
    const all = [job('first', 'x'), job('a1', 'a'), job('a2', 'a'), job('a3', 'a'), job('b1', 'b'), job('b2', 'b'), job('c1', 'c')];
    open();
    await Promise.all(all);
    expect(order).toEqual(['first', 'a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
    expect(slots.load()).toEqual({ running: 0, waiting: 0 });
  });
});

/** A promise that holds whoever awaits it until `open` is called. */
function closedGate() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { gate, open };
}
