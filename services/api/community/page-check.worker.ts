import { merge, type Checked } from './listing-checks.js';
import { checkPage, checkRoomPage } from './page-checks.js';

// The page checks' worker thread (page-check-pool.ts): parsing HTML is CPU work of about 0.7 ms a
// kilobyte, so it runs here and never on the api's event loop.

export interface PageBatch {
  /** A static build's HTML pages (page-checks.ts caps what is read). */
  pages: { path: string; html: string }[];
  /** The project's room pages (setPage), cut to the same caps. */
  roomPages?: { title: string; kind: 'markdown' | 'html'; content: string }[];
}

export default function checkPages({ pages, roomPages = [] }: PageBatch): Checked {
  return merge(...pages.map((p) => checkPage(p.html, p.path)), ...roomPages.map(checkRoomPage));
}
