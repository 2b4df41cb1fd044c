import { execFileSync } from 'node:child_process';

// Every machine-wide thing the two-host harness makes (network namespaces, veth pairs, processes,
// mounts) is undone here: in reverse order at close, each step bounded in time and failing alone,
// and, if the test process is cut short, what can be undone synchronously at exit.

type Step = { name: string; run: () => Promise<unknown>; atExit?: () => void };

export function createTeardown(stepMs = 20_000) {
  const steps: Step[] = [];
  let done = false;
  const onExit = () => {
    for (const s of [...steps].reverse())
      try {
        s.atExit?.();
      } catch {
        // Best effort while the process exits.
      }
  };
  process.once('exit', onExit);

  return {
    /** Registers an undo as soon as the thing exists; `atExit` is the synchronous last resort. */
    add(name: string, run: () => Promise<unknown>, atExit?: () => void) {
      steps.push({ name, run, atExit });
    },
    /** Runs every undo, newest first; a step that fails or times out does not stop the others. */
    async run(): Promise<string[]> {
      if (done) return [];
      done = true;
      process.removeListener('exit', onExit);
      const failed: string[] = [];
      for (const s of steps.reverse()) {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('timed out')), stepMs);
        });
        try {
          await Promise.race([s.run(), timeout]);
        } catch (err) {
          failed.push(`${s.name}: ${(err as Error).message}`);
          try {
            s.atExit?.();
          } catch {
            // Already reported.
          }
        } finally {
          clearTimeout(timer);
        }
      }
      return failed;
    },
  };
}

export type Teardown = ReturnType<typeof createTeardown>;

/** Runs a command synchronously, ignoring failure (teardown of something perhaps already gone). */
export function quietly(cmd: string, args: string[]) {
  try {
    execFileSync(cmd, args, { stdio: 'ignore', timeout: 10_000 });
  } catch {
    // Already gone.
  }
}
