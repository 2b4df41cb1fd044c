import type { V1Pod } from '@kubernetes/client-node';
import type { CopyExit } from '../copy-engine.js';
import type { PodWatch } from './pod-watch.js';
import { copyOf, podEnd } from './pod-status.js';

// A runner's copies' exits, from the pod cache's changes: a pod whose copy ended (its code, an
// OOM kill), or a pod deleted before it ended (by hand, an eviction) with no code. Each pod's end
// is told once per stream, however often a relist delivers it again. The watch reconnects by
// itself, so the stream ends only when `signal` aborts; `at` is the end's time (seconds).

export function podExits(watch: PodWatch, runnerId: string, opts: { since?: number; signal?: AbortSignal } = {}): AsyncIterable<CopyExit> {
  const told = new Set<string>();
  const queue: CopyExit[] = [];
  let wake: (() => void) | null = null;
  const key = (pod: V1Pod) => pod.metadata?.uid ?? pod.metadata?.name ?? '';

  const exitOf = (pod: V1Pod, deleted: boolean): CopyExit | null => {
    const copyId = copyOf(pod, runnerId);
    if (!copyId) return null;
    const end = podEnd(pod);
    if (!end && !deleted) return null;
    const at = end?.finishedAt ? Math.floor(end.finishedAt.getTime() / 1000) : undefined;
    return {
      copyId,
      handle: pod.metadata?.name ?? '',
      exitCode: end?.exitCode ?? null,
      oom: end?.oomKilled ?? false,
      ...(at ? { at } : {}),
    };
  };

  // What ended before this stream opened is the reconcile's, unless the caller asks from `since` on.
  for (const pod of watch.list()) {
    const exit = exitOf(pod, false);
    if (exit && (opts.since === undefined || (exit.at ?? 0) < opts.since)) told.add(key(pod));
  }

  const unsubscribe = watch.onChange((change, pod) => {
    if (told.has(key(pod))) return;
    const exit = exitOf(pod, change === 'DELETED');
    if (!exit) return;
    told.add(key(pod));
    queue.push(exit);
    wake?.();
  });

  return {
    async *[Symbol.asyncIterator]() {
      const aborted = new Promise<void>((resolve) => {
        if (opts.signal?.aborted) resolve();
        opts.signal?.addEventListener('abort', () => resolve(), { once: true });
      });
      try {
        while (!opts.signal?.aborted) {
          const next = queue.shift();
          if (next) {
            yield next;
            continue;
          }
          await Promise.race([new Promise<void>((resolve) => (wake = resolve)), aborted]);
          wake = null;
        }
      } finally {
        unsubscribe();
      }
    },
  };
}
