import { describe, expect, it } from 'vitest';
import { groupCommit } from './group-commit.js';

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

  it('fails only the item a batch could not take: the others are written again one by one', async () => {
    const write = groupCommit(async (items: number[]) => {
      if (items.includes(13)) throw new Error('thirteen');
      return items;
    });
    const held = write(0);
    const answers = await Promise.allSettled([held, write(12), write(13), write(14)]);
    expect(answers.map((a) => (a.status === 'fulfilled' ? a.value : (a.reason as Error).message))).toEqual([0, 12, 'thirteen', 14]);
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
