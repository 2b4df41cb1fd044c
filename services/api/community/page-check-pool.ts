import { threadPool } from '../../core/thread-pool.js';
import type { Checked } from './listing-checks.js';
import type { PageBatch } from './page-check.worker.js';

// The worker threads that run the page checks (issue 28, H3): one thread by default, so a listing
// check takes at most one core and never the api's event loop; a few batches may wait, and past
// that a check is refused 503 `unavailable` with Retry-After rather than queued without end.

export const pagePoolLimits = { threads: 1, queued: 8, retryAfterSeconds: 30 };

const checks = threadPool<PageBatch, Checked>({
  worker: new URL('./page-check.worker', import.meta.url),
  threads: pagePoolLimits.threads,
  queued: pagePoolLimits.queued,
  retryAfterSeconds: pagePoolLimits.retryAfterSeconds,
  busyDetail: 'the listing checks are busy: try again shortly',
});

/** The checks of a batch of pages, in a worker thread; 503 when too many are waiting already. */
export const checkPagesOffLoop = (batch: PageBatch): Promise<Checked> => checks.run(batch);

/** Stops the threads (the api's close). */
export const closePagePool = (): Promise<void> => checks.close();
