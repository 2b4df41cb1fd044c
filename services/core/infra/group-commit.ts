// Group commit: whatever arrives while a batch is being written waits in memory and goes in the
// next one, so an idle writer writes at once and a crowd is written a few hundred at a time, one
// statement a batch instead of one a caller. Each caller is answered once its own batch is
// committed. A batch that fails is written again item by item, so one bad item fails only its
// own caller, never the others batched with it.

export interface GroupCommit<I, O> {
  (item: I): Promise<O>;
  /** Items written, batches run and the largest batch, since start. */
  readonly stats: { items: number; batches: number; largest: number };
}

/** `write` answers every item of a batch, in order. */
export function groupCommit<I, O>(write: (items: I[]) => Promise<O[]>, opts: { maxBatch?: number } = {}): GroupCommit<I, O> {
  const maxBatch = opts.maxBatch ?? 500;
  const stats = { items: 0, batches: 0, largest: 0 };
  let waiting: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  let writing = false;

  async function drain() {
    writing = true;
    try {
      while (waiting.length) {
        const batch = waiting.slice(0, maxBatch);
        waiting = waiting.slice(batch.length);
        stats.batches++;
        stats.items += batch.length;
        stats.largest = Math.max(stats.largest, batch.length);
        try {
          const out = await write(batch.map((w) => w.item));
          batch.forEach((w, i) => w.resolve(out[i]));
        } catch (err) {
          if (batch.length === 1) batch[0].reject(err);
          else for (const w of batch) await write([w.item]).then(([o]) => w.resolve(o), w.reject);
        }
      }
    } finally {
      writing = false;
    }
  }

  const add = (item: I) =>
    new Promise<O>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (!writing) void drain();
    });
  return Object.assign(add, { stats });
}
