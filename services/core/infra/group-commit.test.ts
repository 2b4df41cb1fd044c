import { describe, expect, it, vi } from 'vitest';
import { AGAIN, groupCommit, oncePerClient } from './group-commit.js';

describe('group commit', () => {
  it('writes an idle caller at once, and those who arrive meanwhile together in the next batch', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const firstHeld = new Promise<void>((r) => (release = r));
    const write = groupCommit(async (items: number[]) => {
      batches.push(items);
      if (batches.length === 1) await firstHeld;
      return items.map((i) => i * 10);
    });
    const first = write(1);
    const rest = [2, 3, 4].map((i) => write(i));
    release();
    expect(await Promise.all([first, ...rest])).toEqual([10, 20, 30, 40]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
    expect(write.stats).toEqual({ items: 4, batches: 2, largest: 3 });
  });

  it('fails only the item a batch could not take: the others are written again, in halves', async () => {
    const write = groupCommit(async (items: number[]) => {
      if (items.includes(13)) throw new Error('thirteen');
      return items;
    });
    const held = write(0);
    const answers = await Promise.allSettled([held, write(12), write(13), write(14)]);
    expect(answers.map((a) => (a.status === 'fulfilled' ? a.value : (a.reason as Error).message))).toEqual([0, 12, 'thirteen', 14]);
  });

  it('finds one bad item in a big batch in halves, not one statement an item', async () => {
    const writes: number[][] = [];
    let release!: () => void;
    const firstHeld = new Promise<void>((r) => (release = r));
    const write = groupCommit(async (items: number[]) => {
      writes.push(items);
      if (writes.length === 1) await firstHeld;
      if (items.includes(77)) throw new Error('bad item');
      return items;
    });
    const held = write(-1);
    const batch = Array.from({ length: 128 }, (_, i) => i);
    const answers = Promise.allSettled(batch.map((i) => write(i)));
    release();
    await held;
    const settled = await answers;
    expect(settled.filter((a) => a.status === 'rejected').map((a) => ((a as PromiseRejectedResult).reason as Error).message)).toEqual([
      'bad item',
    ]);
    expect((settled[76] as PromiseFulfilledResult<number>).value).toBe(76);
    expect(settled[77].status).toBe('rejected');
    // The held one, the batch of 128, then two halves at each of 7 levels (64, 32, … 1): 16, where
    // one statement an item would have been 130.
    expect(writes.length).toBe(2 + 2 * 7);
    expect(writes.slice(1).filter((w) => w.length === 1)).toEqual([[76], [77]]);
  });

  it('writes an item answered AGAIN in the next batch, ahead of those who came after it', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const firstHeld = new Promise<void>((r) => (release = r));
    let held = true; // 2 cannot be written while the first batch runs (another process has what it needs)
    const write = groupCommit(async (items: number[]) => {
      batches.push(items);
      if (batches.length === 1) {
        await firstHeld;
        held = false;
      }
      return items.map((i) => (i === 2 && batches.length === 1 ? AGAIN : i * 10));
    });
    const first = write(2);
    const later = [3, 4].map((i) => write(i));
    release();
    expect(await Promise.all([first, ...later])).toEqual([20, 30, 40]);
    expect(held).toBe(false);
    expect(batches).toEqual([[2], [2, 3, 4]]);
    expect(write.stats.items).toBe(3); // each written once, the put-back not counted twice
  });

  it('pauses after a batch that did nothing but put its items back, instead of spinning', async () => {
    vi.useFakeTimers();
    try {
      let writes = 0;
      const write = groupCommit(
        async (items: number[]) => {
          writes++;
          return writes < 3 ? items.map((): number | typeof AGAIN => AGAIN) : items;
        },
        { againMs: 30 },
      );
      const answer = write(7);
      await vi.advanceTimersByTimeAsync(29);
      expect(writes).toBe(1); // no second try inside the pause
      await vi.advanceTimersByTimeAsync(1);
      expect(writes).toBe(2);
      await vi.advanceTimersByTimeAsync(30);
      expect(await answer).toBe(7);
      expect(writes).toBe(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps a batch to its largest size', async () => {
    const sizes: number[] = [];
    const write = groupCommit(
      async (items: number[]) => {
        sizes.push(items.length);
        return items;
      },
      { maxBatch: 2 },
    );
    await Promise.all([1, 2, 3, 4, 5].map((i) => write(i)));
    expect(sizes).toEqual([1, 2, 2]);
  });
});

describe('once per client', () => {
  it('makes one set per client, on first use, and keeps it', () => {
    const made: object[] = [];
    const setOf = oncePerClient((client: object) => {
      made.push(client);
      return { client };
    });
    const a = {};
    const b = {};
    expect(setOf(a)).toBe(setOf(a));
    expect(setOf(b)).not.toBe(setOf(a));
    expect(made).toEqual([a, b]);
  });
});
