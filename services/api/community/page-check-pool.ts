import { threadPool } from '../../core/infra/thread-pool.js';
import type { Checked } from './listing-checks.js';
import type { PageBatch } from './page-check.worker.js';

// The worker threads that run the page checks (issue 28, H3): one thread by default, so a listing
// check takes at most one core and never the api's event loop; a few batches may wait, and past
// that a check is refused 503 `unavailable` with Retry-After rather than queued without end.
// Workspaces take turns, each with at most two batches waiting (security review 4, L6): one that
// rehearses its listing back to back cannot keep the thread from the others.

export const pagePoolLimits = { threads: 1, queued: 8, perClient: 2, retryAfterSeconds: 30 };

const checks = threadPool<PageBatch, Checked>({
  worker: new URL('./page-check.worker', import.meta.url),
  threads: pagePoolLimits.threads,
  queued: pagePoolLimits.queued,
  perClient: pagePoolLimits.perClient,
  retryAfterSeconds: pagePoolLimits.retryAfterSeconds,
  busyDetail: 'the listing checks are busy: try again shortly',
});

/** The checks of a batch of pages, in a worker thread in `workspaceId`'s turn; 503 when too many are waiting already. */
export const checkPagesOffLoop = (batch: PageBatch, workspaceId: string): Promise<Checked> => checks.run(batch, workspaceId);

/** Stops the threads (the api's close). */
export const closePagePool = (): Promise<void> => checks.close();
