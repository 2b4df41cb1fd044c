import { buffer } from 'node:stream/consumers';
import type { Sql } from '../../core/infra/db.js';
import type { Storage } from '../../core/infra/storage.js';
import { buildPageChecksOf, storeBuildPageChecks } from '../../data/build-page-checks.sql.js';
import { buildFilesPrefix } from '../../data/builds.sql.js';
import { merge, type Checked, type Finding } from './listing-checks.js';
import { checkPagesOffLoop } from './page-check-pool.js';
import type { PageBatch } from './page-check.worker.js';

// The page checks of a static build (issue 28, H3), once per build: its HTML pages are read
// within caps, parsed in a worker thread, and what they found is stored with the build. A build
// with pages left unread, in whole or in part, does not list (security review 4, L7): what the
// checks did not read could be anything (a phishing form after 256 KB of padding, or behind 200
// shallower pages), so the listing is blocked with reason `unread`; an appeal puts it before a person.

/**
 * What is read of a build (issue 28, H3): at most 200 HTML pages, the first 256 KB of each and
 * 4 MB in all, shallowest paths first. At about 0.7 ms a kilobyte that is a few seconds of one
 * worker thread, once per build; what was left unread is said as a warning.
 */
export const pageCaps = { pages: 200, bytesPerPage: 256 * 1024, bytesPerBuild: 4 * 1024 * 1024 };

const depth = (key: string) => key.split('/').length;

/** The build's HTML pages as far as the caps allow, and a finding for what was not read (it blocks a listing). */
export async function readBuildPages(storage: Storage, buildId: string) {
  const prefix = buildFilesPrefix(buildId);
  const html = (await storage.list(prefix))
    .filter((o) => /\.html?$/i.test(o.key))
    .sort((a, b) => depth(a.key) - depth(b.key) || a.key.localeCompare(b.key));
  const pages: PageBatch['pages'] = [];
  let budget = pageCaps.bytesPerBuild;
  let partly = 0;
  let unread = 0;
  for (const o of html) {
    if (pages.length >= pageCaps.pages || budget <= 0) {
      unread++;
      continue;
    }
    const want = Math.min(o.size, pageCaps.bytesPerPage, budget);
    if (want < o.size) partly++;
    // Only the bytes wanted are fetched; a store that ignores the range is cut short here.
    const object = want > 0 ? await storage.get(o.key, `bytes=0-${want - 1}`) : null;
    const bytes = object ? (await buffer(object.body)).subarray(0, want) : Buffer.alloc(0);
    budget -= bytes.length;
    pages.push({ path: `/${o.key.slice(prefix.length)}`, html: bytes.toString('utf8') });
  }
  const unreadFindings: Finding[] = [];
  if (partly)
    unreadFindings.push({
      part: 'pages',
      reason: 'unread',
      detail: `${partly} page(s) were read only in part (the first ${pageCaps.bytesPerPage / 1024} KB of a page, ${pageCaps.bytesPerBuild / 1024 / 1024} MB in all): make them smaller, or appeal for a review`,
    });
  if (unread)
    unreadFindings.push({
      part: 'pages',
      reason: 'unread',
      detail: `${unread} page(s) were not read (at most ${pageCaps.pages} pages and ${pageCaps.bytesPerBuild / 1024 / 1024} MB are): make fewer or smaller pages, or appeal for a review`,
    });
  return { pages, unread: unreadFindings, bytesRead: pageCaps.bytesPerBuild - budget };
}

// One check of a build at a time in this process: a second caller waits for the first's result.
const inFlight = new Map<string, Promise<Checked>>();

/**
 * What the page checks found in a static build: stored once per build (build_page_checks), so a
 * listing or rehearsal after the first reads them; the first parses the pages in a worker thread.
 */
export async function buildPageFindings(sql: Sql, storage: Storage, buildId: string, workspaceId: string): Promise<Checked> {
  const stored = await buildPageChecksOf(sql, buildId);
  if (stored) return unreadBlocks(stored as Checked);
  let running = inFlight.get(buildId);
  if (!running) {
    running = (async () => {
      const read = await readBuildPages(storage, buildId);
      const found = merge(await checkPagesOffLoop({ pages: read.pages }, workspaceId), { blocked: read.unread, warnings: [] });
      await storeBuildPageChecks(sql, buildId, { ...found, pagesRead: read.pages.length, bytesRead: read.bytesRead });
      return found;
    })().finally(() => inFlight.delete(buildId));
    inFlight.set(buildId, running);
  }
  return running;
}

/** Findings stored before unread pages blocked (they were warnings then) block as they do now. */
function unreadBlocks(checked: Checked): Checked {
  const unread = checked.warnings.filter((w) => w.part === 'pages' && w.reason === 'unread');
  if (!unread.length) return checked;
  return { blocked: [...checked.blocked, ...unread], warnings: checked.warnings.filter((w) => !unread.includes(w)) };
}
