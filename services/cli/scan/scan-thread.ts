import { getCompileCacheDir } from 'node:module';
import { Worker } from 'node:worker_threads';
import { LINT_THREAD, lintHere, type LintAnswer, type LintHit, type LintRequest, type LintThreadData } from './lint-source.js';

// The secret scan's rules run in a worker thread of their own, started as a deploy starts: their
// modules load (0.1 s) on the machine's other core while this thread reads the folder, lays the
// image and serves the engine its pull, and each text's scan then runs off this thread's event
// loop. Were the worker unable to start or to load the rules, every text is scanned in this
// thread instead, as before: the scan is never skipped.

/** Where a scan's texts go through the rules. */
export interface Linter {
  lint(where: string, content: string): Promise<LintHit[]>;
  /** True once a thread of its own has loaded the rules; false when texts are scanned in this thread. */
  ready: Promise<boolean>;
  /** Ends the thread, if any. */
  close(): Promise<void>;
}

/** The rules in this thread: loaded on the first text. */
export const linterHere: Linter = { lint: lintHere, ready: Promise.resolve(false), close: async () => {} };

/** A worker thread running the rules, its modules loading from now on. */
export function startLintThread(): Linter {
  let worker: Worker | null = null;
  try {
    // The tool's compile cache (bin/pitch.mjs), when it has one: the rules' modules load from it too.
    const workerData: LintThreadData = { ...LINT_THREAD, compileCache: getCompileCacheDir() };
    worker = new Worker(new URL('./lint-source.ts', import.meta.url), { workerData });
  } catch {
    return linterHere;
  }
  // Only a text being scanned keeps the tool alive: an idle thread never holds its end.
  worker.unref();
  const pending = new Map<number, { request: LintRequest; resolve: (hits: LintHit[] | Promise<LintHit[]>) => void }>();
  let next = 0;
  let failed = false;
  let loaded!: (ready: boolean) => void;
  const ready = new Promise<boolean>((resolve) => (loaded = resolve));
  const fail = () => {
    failed = true;
    loaded(false);
    for (const { request, resolve } of pending.values()) resolve(lintHere(request.where, request.content));
    pending.clear();
  };
  worker.on('error', fail);
  worker.on('exit', fail);
  worker.on('message', (answer: LintAnswer) => {
    if ('ready' in answer) return answer.ready ? loaded(true) : fail();
    const asked = pending.get(answer.id);
    if (!asked) return;
    pending.delete(answer.id);
    if (pending.size === 0) worker?.unref();
    // A text the thread could not scan is scanned here: its answer is never "nothing found".
    asked.resolve('hits' in answer ? answer.hits : lintHere(asked.request.where, asked.request.content));
  });
  return {
    ready,
    lint(where, content) {
      if (failed || !worker) return lintHere(where, content);
      const request = { id: next++, where, content };
      return new Promise<LintHit[]>((resolve) => {
        if (pending.size === 0) worker!.ref();
        pending.set(request.id, { request, resolve });
        worker!.postMessage(request);
      });
    },
    async close() {
      const ending = worker;
      worker = null;
      failed = true;
      await ending?.terminate();
    },
  };
}
