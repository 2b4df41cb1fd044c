import type { Waiters } from '../service/runner-context.js';

// Long-polls of the room: `GET /sessions/:id/copy?wait=ms&seen=…` sleeps here until something
// about that session changes in this process (or a broadcast wakes every waiter, e.g. when the
// queue moves and every place changes). Waiters also re-read the database each second, so a
// change made by another runner is seen too.

export function createWaiters(): Waiters {
  const bySession = new Map<string, Set<() => void>>();
  return {
    wait(sessionId: string, ms: number): Promise<void> {
      return new Promise((resolve) => {
        const set = bySession.get(sessionId) ?? new Set();
        bySession.set(sessionId, set);
        const done = () => {
          clearTimeout(timer);
          set.delete(done);
          if (!set.size) bySession.delete(sessionId);
          resolve();
        };
        const timer = setTimeout(done, ms);
        set.add(done);
      });
    },
    wake(sessionId: string | null | undefined) {
      if (!sessionId) return;
      for (const done of [...(bySession.get(sessionId) ?? [])]) done();
    },
    wakeAll() {
      for (const set of [...bySession.values()]) for (const done of [...set]) done();
    },
  };
}
