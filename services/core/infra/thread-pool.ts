import { Piscina } from 'piscina';
import { unavailable } from '../rules/errors.js';
import { workSlots } from '../rules/work-slots.js';

// A bounded pool of worker threads for CPU-heavy work that must stay off the event loop (room
// pages rendered, listing checks): at most `threads` at once, at most `queued` waiting, and beyond
// that the spec's 503 `unavailable` with Retry-After rather than a queue that grows with the
// attack. The queue is fair between clients (work-slots.ts; security review 4, L6): each client
// waits in a line of its own, at most `perClient` deep, and clients take turns at the threads.
// Threads start on demand and stop after a minute idle; the pool itself is made at first use, so
// a process that never needs it starts none.

export interface ThreadPoolOptions {
  /** The worker module without its extension, beside its caller: `new URL('./x.worker', import.meta.url)`. */
  worker: URL;
  threads: number;
  queued: number;
  /** Most one client may have queued; `queued` when not given. */
  perClient?: number;
  retryAfterSeconds: number;
  /** Said in the 503's detail. */
  busyDetail: string;
  /** A thread's old-generation heap; past it the task fails with ERR_WORKER_OUT_OF_MEMORY. */
  heapMb?: number;
}

export interface ThreadPool<Task, Result> {
  /** `task` run in a thread in `client`'s turn; the 503 when the queue, or this client's line, is full. */
  run(task: Task, client?: string): Promise<Result>;
  /** The 503 this pool answers when busy (for callers that bound more than the queue's length). */
  busy(): Error;
  /** Ends the threads (the process's close, tests); a later run starts a new pool. */
  close(): Promise<void>;
}

// Compiled, the workers are .js beside their callers; run from the sources (tests, `npm start`
// through tsx), they are .ts and their threads need tsx's loader too.
const fromSources = import.meta.url.endsWith('.ts');

export function threadPool<Task, Result>(opts: ThreadPoolOptions): ThreadPool<Task, Result> {
  let pool: Piscina<Task, Result> | null = null;
  // The order is kept here: no more tasks reach Piscina than it has threads, so its own queue
  // (first come, first served) stays empty.
  const slots = workSlots({
    running: opts.threads,
    waiting: opts.queued,
    perClient: opts.perClient,
    retryAfter: opts.retryAfterSeconds,
    what: 'tasks',
    busyDetail: opts.busyDetail,
  });
  const busy = () => unavailable(opts.busyDetail, opts.retryAfterSeconds);
  const poolOf = () =>
    (pool ??= new Piscina<Task, Result>({
      filename: `${opts.worker.href}.${fromSources ? 'ts' : 'js'}`,
      execArgv: fromSources ? [...process.execArgv, '--import', 'tsx'] : process.execArgv,
      minThreads: 0,
      maxThreads: opts.threads,
      maxQueue: opts.queued,
      idleTimeout: 60_000,
      ...(opts.heapMb ? { resourceLimits: { maxOldGenerationSizeMb: opts.heapMb } } : {}),
    }));
  return {
    run(task, client) {
      return slots.run(async () => {
        try {
          return await poolOf().run(task);
        } catch (err) {
          if (err instanceof Error && /queue is at limit/i.test(err.message)) throw busy();
          throw err;
        }
      }, client);
    },
    busy,
    async close() {
      const ending = pool;
      pool = null;
      await ending?.destroy();
    },
  };
}
