// The room's own pages, as plain server-rendered HTML. Every value from a builder or a viewer
// goes through `escapeHtml`; nothing here runs build code.

import { escapeHtml } from '../core/rules/escape-html.js';

export { escapeHtml };

/**
 * The notices' own style, inline: the room's type and card, nothing fetched. An origin that sets a
 * `style-src` must allow it by its hash.
 */
const noticeStyle =
  'html,body{margin:0;min-height:100%;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2330;background:#f3f4f7}' +
  '.notice{box-sizing:border-box;max-width:34rem;margin:15vh auto;padding:2rem;background:#fff;border-radius:12px;box-shadow:0 4px 20px rgba(20,30,60,.08)}' +
  '.notice h1{margin:.25rem 0 .75rem;font-size:1.4rem}.notice p{margin:.5rem 0}.notice .project{color:#5b6475;margin:0}' +
  '@media (max-width:480px){.notice{margin:1rem;padding:1.25rem}}';

/**
 * A page of the room around `body`, with the shell's stylesheet and no script unless given.
 * `selfContained` pages carry their style inline instead: they are also served on content and
 * copy origins (inside the app's frame), which have no /room/assets and may not be answering.
 */
export function roomDocument(opts: {
  title: string;
  body: string;
  scripts?: string[];
  data?: unknown;
  selfContained?: boolean;
  head?: string;
}): string {
  const data = opts.data === undefined ? '' : `<script type="application/json" id="room-data">${jsonForScript(opts.data)}</script>`;
  const style = opts.selfContained ? `<style>${noticeStyle}</style>` : '<link rel="stylesheet" href="/room/assets/shell.css">';
  // Deferred scripts run in order, once the document is parsed.
  const script = (opts.scripts ?? []).map((src) => `<script src="${src}" defer></script>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(opts.title)}</title>
${style}${opts.head ?? ''}
${data}${script}
</head>
<body>
${opts.body}
</body>
</html>
`;
}

/** JSON inside a script element: `<` is escaped so no value can close the element. */
const jsonForScript = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/**
 * The one Not found: a wrong, revoked or expired link, a deleted project, a plan without private
 * links, an operator's pause and a spent pass all answer these same bytes (spec 7), so an address
 * says nothing about why it does not open.
 */
export const notFoundPage = Buffer.from(
  roomDocument({
    title: 'Not found',
    selfContained: true,
    body: '<main class="notice"><h1>Not found</h1><p>There is nothing at this address.</p></main>',
  }),
);

/**
 * A notice in place of the room (paused, not taking visits, demo full) or of an app inside its
 * frame (starting again, not answering, paused): self-contained, in the room's look.
 */
export function noticePage(projectName: string, heading: string, lines: string[]): string {
  const paragraphs = lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('');
  return roomDocument({
    title: `${projectName}: ${heading}`,
    selfContained: true,
    body: `<main class="notice"><p class="project">${escapeHtml(projectName)}</p><h1>${escapeHtml(heading)}</h1>${paragraphs}</main>`,
  });
}
