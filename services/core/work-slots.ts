import { unavailable } from './errors.js';

// A process-wide bound on one kind of heavy work (decoding an image, waiting on a model): at most
// `running` at a time, at most `waiting` more queued behind them, and beyond that an immediate 503
// with Retry-After rather than a queue that grows with the attack. Kept in process memory on purpose:
// it bounds this process's own CPU and memory, not what a client may ask for.

export interface WorkSlots {
  /** `work` once a slot is free; the spec's 503 `unavailable` (with `retryAfter`, seconds) when the queue is full. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** How many run and wait now (for tests and benchmarks). */
  load(): { running: number; waiting: number };
}

export function workSlots(opts: { running: number; waiting: number; retryAfter: number; what: string }): WorkSlots {
  let running = 0;
  const queue: (() => void)[] = [];
  const release = () => {
    const next = queue.shift();
    if (next) next();
    else running--;
  };
  return {
    async run(work) {
      if (running >= opts.running) {
        if (queue.length >= opts.waiting) {
          throw unavailable(`too many ${opts.what} at once; try again shortly`, opts.retryAfter);
        }
        // The slot passes straight from the one finishing to the next in line.
        await new Promise<void>((resolve) => queue.push(resolve));
      } else {
        running++;
      }
      try {
        return await work();
      } finally {
        release();
      }
    },
    load: () => ({ running, waiting: queue.length }),
  };
}
