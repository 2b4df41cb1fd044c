import { refused } from '../../rules/errors.js';
import { threadPool } from '../thread-pool.js';
import type { RenderTask, RenderedPage } from './render-page.worker.js';

export type { RenderedPage } from './render-page.worker.js';

// Room pages are rendered and sanitised off the event loop: 2 MB of markdown takes the better part
// of a second of CPU and some 250 MB of heap, which on the api's or the room's own thread would
// stall every tenant's requests. One pool per process (each process has one event loop to keep
// free), shared by whoever renders in it: the api at addPage, the room for a page stored before
// pages kept their HTML (migration 00019).

/** Threads that render at once: one, so a burst of pages costs one core and one heap at most. */
const threads = 1;
/**
 * What may wait for the thread, counted in pages and in characters (the work, and the memory the
 * waiting pages hold): beyond either, a render is refused (503 with Retry-After). Eight pages of
 * the largest size are some seven seconds of rendering; small pages queue by the dozen.
 */
export const RENDER_QUEUE_MAX = 64;
export const RENDER_QUEUE_CHARS_MAX = 16_000_000;
/**
 * Pages one client (a workspace, a viewer's address) may have waiting (security review 4, L6):
 * clients take turns at the thread, so whoever waits behind a flood is next after one of its
 * pages, and one client fills at most this share of RENDER_QUEUE_MAX. Enough for a builder's
 * script adding a room's pages at once (ten racing additions is a tested case); addPage renders
 * a page on every save, so saving back to back fills this client's line, not the queue.
 */
export const RENDER_QUEUE_PER_CLIENT = 12;
/** Seconds a refused caller is told to wait: about what a full queue takes to drain. */
export const RENDER_RETRY_SECONDS = 5;
/** A thread's heap: a 2 MB page of dense markdown peaks near 250 MB; anything above is refused. */
const heapMb = 320;

const renderer = threadPool<RenderTask, RenderedPage>({
  worker: new URL('./render-page.worker', import.meta.url),
  threads,
  queued: RENDER_QUEUE_MAX,
  perClient: RENDER_QUEUE_PER_CLIENT,
  retryAfterSeconds: RENDER_RETRY_SECONDS,
  busyDetail: 'pages are being prepared for many rooms at once; try again shortly',
  heapMb,
});
/** Characters of the pages submitted and not yet rendered. */
let pendingChars = 0;

/**
 * A page's safe HTML and its hash, made in the pool's thread in `client`'s turn. Throws the pool's
 * 503 when the queue (or this client's line in it) is full, and a 422 `size` refusal for a page too
 * large to render within the thread's heap.
 */
export async function renderStoredPage(kind: RenderTask['kind'], content: string, client?: string): Promise<RenderedPage> {
  // One page alone is always taken, whatever its size; it is the queue behind it that is bounded.
  if (pendingChars > 0 && pendingChars + content.length > RENDER_QUEUE_CHARS_MAX) throw renderer.busy();
  pendingChars += content.length;
  try {
    return await renderer.run({ kind, content }, client);
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY')
      throw refused(422, 'size', 'this page is too large to prepare; split it into smaller pages');
    throw err;
  } finally {
    pendingChars -= content.length;
  }
}

/** Ends the pool's threads (tests and shutdown; a later render starts a new pool). */
export const closePageRenderer = (): Promise<void> => renderer.close();
