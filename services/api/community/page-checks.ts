import { Parser } from 'htmlparser2';
import { getDomain } from 'tldts';
import { checkPageText, checkPageTitle, checkWords, merge, type Checked, type Finding } from './listing-checks.js';

// The listing checks on a static build's pages: a form that asks for a password (a static demo
// has no server to check one, so it can only be collecting them), a form that sends what is typed
// to another site, a title or heading spelling a brand in look-alike letters; phishing wording
// and banned words in the text warn. Container builds are never unpacked, so never read. These are
// pure functions: page-check.worker.ts runs them in a worker thread, build-page-findings.ts reads
// the pages and keeps what they found.

export function checkPage(html: string, path: string): Checked {
  const { blocked, text, heading } = readHtml(html, path);
  return merge({ blocked, warnings: [] }, checkPageTitle(heading, `${path}'s title`), checkPageText(text, path));
}

/**
 * A room page (setPage's title, markdown or HTML): the builder's own words, shown by the platform
 * on its own origin, so they are checked as strictly as a card's (phishing wording blocks here),
 * plus an HTML page's forms as a build's pages are.
 */
export function checkRoomPage(page: { title: string; kind: 'markdown' | 'html'; content: string }): Checked {
  const where = `room page "${page.title}"`;
  const html = page.kind === 'html' ? readHtml(page.content, where) : null;
  const words = checkWords('pages', `${page.title}\n${html ? html.text : page.content}`);
  const said = (f: Finding): Finding => ({ ...f, detail: `${where}: ${f.detail}` });
  return { blocked: [...(html?.blocked ?? []), ...words.blocked.map(said)], warnings: words.warnings.map(said) };
}

/** One pass of htmlparser2: the visible text, the title and h1 text, and the forms that block. */
function readHtml(html: string, path: string) {
  const blocked: Finding[] = [];
  let text = '';
  let heading = '';
  let inHeading = 0;
  let skip = 0;
  const parser = new Parser(
    {
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
    },
    { decodeEntities: true },
  );
  parser.end(html);
  return { blocked, text, heading };
}
