/**
 * A counting semaphore: at most `size` tasks run at once, the rest wait in arrival order. The
 * runner puts every engine call behind one, so a burst of viewers becomes a steady stream of
 * engine work instead of a pile-up inside the engine (JupyterHub serialised every call through
 * one thread and saw 40–60 s spawns; an unbounded burst overwhelms dockerd).
 */
export function createLimit(size: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async function run<T>(task: () => Promise<T>): Promise<T> {
    // A finishing task hands its slot straight to the next waiter, so a newcomer can never slip in between.
    if (active >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    else active++;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}
export type Limit = ReturnType<typeof createLimit>;
