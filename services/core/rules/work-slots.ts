import { unavailable } from './errors.js';

// A process-wide bound on one kind of heavy work (decoding an image, rendering or checking pages,
// waiting on a model): at most `running` at a time, at most `waiting` more queued behind them, and
// beyond that an immediate 503 with Retry-After rather than a queue that grows with the attack.
//
// Fair between clients (security review 4, L6): each caller names who asks (a workspace, a viewer's
// address), each client waits in a line of its own, at most `perClient` deep, and a freed slot goes
// to the clients in turn (round robin), not to whoever queued first; the client whose work just
// ended goes to the back. So a client posting back to back holds one slot and its own short line,
// and another client's one request is the next to run.
//
// Kept in process memory on purpose: it bounds this process's own CPU and memory and the order it
// serves in, not what a client may ask for over time (limits of that kind live in Redis or Postgres).

export interface WorkSlots {
  /**
   * `work` once a slot is free and `client`'s turn has come; the spec's 503 `unavailable` (with
   * `retryAfter`, seconds) when the queue, or this client's line in it, is full. Work that names
   * no client shares one line.
   */
  run<T>(work: () => Promise<T>, client?: string): Promise<T>;
  /** How many run and wait now (for tests and benchmarks). */
  load(): { running: number; waiting: number };
}

export interface WorkSlotsOptions {
  running: number;
  waiting: number;
  /** Most one client may have waiting; `waiting` when not given (no client bound). */
  perClient?: number;
  retryAfter: number;
  /** What the work is, said in the 503 ("images being read"). */
  what: string;
  /** The 503's whole detail, instead of the one made from `what`. */
  busyDetail?: string;
}

export function workSlots(opts: WorkSlotsOptions): WorkSlots {
  let running = 0;
  let waiting = 0;
  /** Each client's line, in the order clients take their turns (a Map keeps insertion order). */
  const lines = new Map<string, (() => void)[]>();
  const perClient = Math.min(opts.perClient ?? opts.waiting, opts.waiting);
  const busy = () => unavailable(opts.busyDetail ?? `too many ${opts.what} at once; try again shortly`, opts.retryAfter);

  const release = (finished: string) => {
    // The client that just had a turn waits behind every other that is waiting.
    const own = lines.get(finished);
    if (own) {
      lines.delete(finished);
      lines.set(finished, own);
    }
    const turn = lines.entries().next();
    if (turn.done) {
      running--;
      return;
    }
    const [client, line] = turn.value;
    const next = line.shift()!;
    // The client goes to the back of the round; a client with no one left waiting leaves it.
    lines.delete(client);
    if (line.length) lines.set(client, line);
    waiting--;
    // The slot passes straight from the one finishing to the next in turn.
    next();
  };

  return {
    async run(work, client = '') {
      if (running >= opts.running) {
        const line = lines.get(client) ?? [];
        if (waiting >= opts.waiting || line.length >= perClient) throw busy();
        await new Promise<void>((resolve) => {
          line.push(resolve);
          if (!lines.has(client)) lines.set(client, line);
          waiting++;
        });
      } else {
        running++;
      }
      try {
        return await work();
      } finally {
        release(client);
      }
    },
    load: () => ({ running, waiting }),
  };
}
