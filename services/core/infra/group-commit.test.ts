import { describe, expect, it } from 'vitest';
import { groupCommit, oncePerClient } from './group-commit.js';

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
