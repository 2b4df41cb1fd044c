import { buffer } from 'node:stream/consumers';
import { Parser } from 'htmlparser2';
import { getDomain } from 'tldts';
import type { Storage } from '../../core/storage.js';
import { buildFilesPrefix } from '../../data/builds.sql.js';
import { checkPageText, checkPageTitle, merge, type Checked, type Finding } from './listing-checks.js';

// The listing checks on a static build's pages: a form that asks for a password (a static demo
// has no server to check one, so it can only be collecting them), a form that sends what is typed
// to another site, a title or heading spelling a brand in look-alike letters; phishing wording
// and banned words in the text warn. Container builds are never unpacked, so never read.

/** HTML files read at most, and bytes of each: enough for any real demo's pages. */
const MAX_PAGES = 200;
const MAX_PAGE_BYTES = 2 * 1024 * 1024;

export function checkPage(html: string, path: string): Checked {
  const blocked: Finding[] = [];
  let text = '';
  let heading = '';
  let inHeading = 0;
  let skip = 0;
  const parser = new Parser({
    onopentag(name, attrs) {
      if (name === 'script' || name === 'style') skip++;
      if (name === 'title' || name === 'h1') inHeading++;
      if (name === 'input' && attrs.type?.toLowerCase() === 'password') {
        blocked.push({ part: 'pages', reason: 'credentials', detail: `${path} has a form that asks for a password` });
      }
      if (name === 'form' && /^(https?:)?\/\//i.test(attrs.action ?? '')) {
        const to = getDomain(attrs.action!.startsWith('//') ? `https:${attrs.action}` : attrs.action!) ?? attrs.action;
        blocked.push({ part: 'pages', reason: 'phishing', detail: `${path} sends a form to another site (${to})` });
      }
    },
    ontext(data) {
      if (skip) return;
      text += ` ${data}`;
      if (inHeading) heading += ` ${data}`;
    },
    onclosetag(name) {
      if (name === 'script' || name === 'style') skip = Math.max(0, skip - 1);
      if (name === 'title' || name === 'h1') inHeading = Math.max(0, inHeading - 1);
    },
  }, { decodeEntities: true });
  parser.end(html);
  return merge({ blocked, warnings: [] }, checkPageTitle(heading, `${path}'s title`), checkPageText(text, path));
}

/** Every HTML page of a static build, checked; each finding once per kind and page. */
export async function checkBuildPages(storage: Storage, buildId: string): Promise<Checked> {
  const prefix = buildFilesPrefix(buildId);
  const pages = (await storage.list(prefix)).filter((o) => /\.html?$/i.test(o.key) && o.size <= MAX_PAGE_BYTES).slice(0, MAX_PAGES);
  const results: Checked[] = [];
  for (const page of pages) {
    const object = await storage.get(page.key);
    if (!object) continue;
    results.push(checkPage((await buffer(object.body)).toString('utf8'), `/${page.key.slice(prefix.length)}`));
  }
  return merge(...results);
}
