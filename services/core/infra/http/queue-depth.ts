import { queueDepth } from '../metrics.js';
import { queueNames, type Queues } from '../queues.js';
import { withTimeout } from './with-timeout.js';

// BullMQ keeps no counters that Prometheus could read, so queue_jobs is filled at scrape time
// from each queue's job counts: a few ZCARD/LLEN per queue, and never older than the scrape.

/** The job states shown, as BullMQ names them. */
export const jobStates = ['wait', 'active', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed'] as const;

/**
 * Sets queue_jobs for every queue of the catalog. With Redis down or slow it gives up after
 * `timeoutMs`, and the scrape serves the last good values rather than hang.
 */
export async function collectQueueDepths(queues: Queues, timeoutMs = 2_000): Promise<void> {
  const counting = Promise.all(
    queueNames.map(async (name) => {
      const counts = await queues.get(name).getJobCounts(...jobStates);
      for (const state of jobStates) queueDepth.set({ queue: name, state }, counts[state] ?? 0);
    }),
  );
  await withTimeout(counting, timeoutMs, 'queue counts');
}
