import { Piscina } from 'piscina';
import { Refusal } from '../../core/errors.js';
import type { Checked } from './listing-checks.js';
import type { PageBatch } from './page-check.worker.js';

// The worker threads that run the page checks (issue 28, H3): one thread by default, so a listing
// check takes at most one core and never the api's event loop; a few batches may wait, and past
// that a check is refused 503 `unavailable` with Retry-After rather than queued without end.
// Threads start on demand and stop after a minute idle.

export const pagePoolLimits = { threads: 1, queued: 8, retryAfterSeconds: 30 };

// Compiled, this file is .js beside a .js worker; run from the sources (tests, `npm start` through
// tsx), the worker is .ts and its thread needs tsx's loader too.
const fromSources = import.meta.url.endsWith('.ts');
let pool: Piscina | null = null;

function poolOf(): Piscina {
  pool ??= new Piscina({
    filename: new URL(`./page-check.worker.${fromSources ? 'ts' : 'js'}`, import.meta.url).href,
    execArgv: fromSources ? [...process.execArgv, '--import', 'tsx'] : process.execArgv,
    minThreads: 0,
    maxThreads: pagePoolLimits.threads,
    maxQueue: pagePoolLimits.queued,
    idleTimeout: 60_000,
  });
  return pool;
}

/** The checks of a batch of pages, in a worker thread; 503 when too many are waiting already. */
export async function checkPagesOffLoop(batch: PageBatch): Promise<Checked> {
  const p = poolOf();
  if (p.queueSize >= pagePoolLimits.queued) throw busy();
  try {
    return (await p.run(batch)) as Checked;
  } catch (err) {
    if (err instanceof Error && /queue is at limit/i.test(err.message)) throw busy();
    throw err;
  }
}

const busy = () => new Refusal(503, 'unavailable', 'unavailable', { detail: 'the listing checks are busy: try again shortly', retryAfter: pagePoolLimits.retryAfterSeconds });

/** Stops the threads (the api's close). */
export async function closePagePool() {
  const p = pool;
  pool = null;
  await p?.destroy();
}
