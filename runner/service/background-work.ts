import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../services/core/infra/log.js';

/**
 * The runner's background work: jittered loops and one-off passes (admissions, top-ups), which
 * closing stops taking and lets finish, at most `settleMs`.
 */
export function createBackgroundWork(log: Logger, settleMs = 10_000) {
  const timers = new Map<string, NodeJS.Timeout>();
  const inFlight = new Set<Promise<unknown>>();
  let closed = false;

  function track(p: Promise<unknown>) {
    inFlight.add(p);
    const done = () => inFlight.delete(p);
    p.then(done, done);
  }

  /** Runs `task` about every `ms`, never two at once. Jittered ±10 %, so runners restarted together do not act in step (JupyterHub's poll_jitter). */
  function every(ms: number, task: () => Promise<unknown>, name: string) {
    let running = false;
    const schedule = () => {
      const t = setTimeout(
        async () => {
          if (closed) return;
          if (!running) {
            running = true;
            const tick = task().catch((err) => log.error({ err, loop: name }, 'runner loop failed'));
            track(tick);
            await tick;
            running = false;
          }
          schedule();
        },
        ms * (0.9 + Math.random() * 0.2),
      );
      t.unref();
      timers.set(name, t);
    };
    schedule();
  }

  /**
   * A pass asked for often (after every copy that ends), run at most once every `ms`: at once when
   * the last run was longer ago, else once when `ms` has passed, however many asked meanwhile. The
   * last ask is always followed by a run.
   */
  function atMostEvery(ms: number, task: () => Promise<unknown>, name: string): () => void {
    let lastAt = Number.NEGATIVE_INFINITY;
    let pending = false;
    const run = () => {
      pending = false;
      timers.delete(name);
      if (closed) return;
      lastAt = performance.now();
      track(task().catch((err) => log.error({ err, pass: name }, 'runner pass failed')));
    };
    return () => {
      if (pending || closed) return;
      const wait = lastAt + ms - performance.now();
      if (wait <= 0) return run();
      pending = true;
      const t = setTimeout(run, wait);
      t.unref();
      timers.set(name, t);
    };
  }

  return {
    track,
    every,
    atMostEvery,
    get closed() {
      return closed;
    },
    /** No new ticks; waits for the work in hand. */
    async close(): Promise<void> {
      closed = true;
      for (const t of timers.values()) clearTimeout(t);
      await Promise.race([Promise.allSettled([...inFlight]), sleep(settleMs)]);
    },
  };
}

export type BackgroundWork = ReturnType<typeof createBackgroundWork>;
