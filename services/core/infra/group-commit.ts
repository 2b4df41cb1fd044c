// Group commit: whatever arrives while a batch is being written waits in memory and goes in the
// next one, so an idle writer writes at once and a crowd is written a few hundred at a time, one
// statement a batch instead of one a caller. Each caller is answered once its own batch is
// committed. A batch that fails is written again in halves, and each half that fails in halves
// again, down to the item: one bad item fails only its own caller, never the others batched with
// it, and costs about 2·log2(batch) statements, not one per item (a hostile id in a batch of 500
// would otherwise make a host run 500 statements).

/**
 * What `write` answers for an item it could not do yet (another process holds what it needs): the
 * item goes back to the head of the line and is written in the next batch, its caller still
 * waiting. A batch that did nothing but put its items back is followed by a pause (`againMs`), so
 * a writer that keeps finding its items held does not spin.
 */
export const AGAIN: unique symbol = Symbol('again');

export interface GroupCommit<I, O> {
  (item: I): Promise<O>;
  /** Items written, batches run and the largest batch, since start. */
  readonly stats: { items: number; batches: number; largest: number };
}

/** `write` answers every item of a batch, in order (or AGAIN for one to write in the next batch). */
export function groupCommit<I, O>(
  write: (items: I[]) => Promise<(O | typeof AGAIN)[]>,
  opts: { maxBatch?: number; againMs?: number } = {},
): GroupCommit<I, O> {
  const maxBatch = opts.maxBatch ?? 500;
  const againMs = opts.againMs ?? 20;
  const stats = { items: 0, batches: 0, largest: 0 };
  type Waiting = { item: I; resolve: (o: O) => void; reject: (e: unknown) => void };
  let waiting: Waiting[] = [];
  let writing = false;

  /**
   * Writes `batch` and answers each caller; a failed batch is split in two and each half settled
   * alone. Returns the items answered AGAIN, in their order.
   */
  async function settle(batch: Waiting[]): Promise<Waiting[]> {
    try {
      const out = await write(batch.map((w) => w.item));
      const again: Waiting[] = [];
      batch.forEach((w, i) => {
        const o = out[i];
        if (o === AGAIN) again.push(w);
        else {
          stats.items++;
          w.resolve(o);
        }
      });
      return again;
    } catch (err) {
      if (batch.length === 1) {
        stats.items++;
        batch[0].reject(err);
        return [];
      }
      const half = Math.ceil(batch.length / 2);
      return [...(await settle(batch.slice(0, half))), ...(await settle(batch.slice(half)))];
    }
  }

  async function drain() {
    writing = true;
    try {
      while (waiting.length) {
        const batch = waiting.slice(0, maxBatch);
        waiting = waiting.slice(batch.length);
        stats.batches++;
        stats.largest = Math.max(stats.largest, batch.length);
        const again = await settle(batch);
        // Ahead of whoever arrived meanwhile: they were here first.
        waiting = [...again, ...waiting];
        if (again.length === batch.length) await new Promise((r) => setTimeout(r, againMs));
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

/**
 * `make(client)` once per database client, on first use: a host's batches are shared by every
 * caller on that client, and another client (a test's second host) keeps its own.
 */
export function oncePerClient<C extends object, T>(make: (client: C) => T): (client: C) => T {
  const made = new WeakMap<C, T>();
  return (client) => {
    let it = made.get(client);
    if (it === undefined) {
      it = make(client);
      made.set(client, it);
    }
    return it;
  };
}
