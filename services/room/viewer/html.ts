// The room's own pages, as plain server-rendered HTML. Every value from a builder or a viewer
// goes through `escapeHtml`; nothing here runs build code.

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => entities[c]);

/** A page of the room around `body`, with the shell's stylesheet and no script unless given. */
export function roomDocument(opts: { title: string; body: string; script?: string; data?: unknown }): string {
  const data = opts.data === undefined ? '' : `<script type="application/json" id="room-data">${jsonForScript(opts.data)}</script>`;
  const script = opts.script ? `<script src="${opts.script}" defer></script>` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(opts.title)}</title>
<link rel="stylesheet" href="/room/assets/shell.css">
${data}${script}
</head>
<body>
${opts.body}
</body>
</html>
`;
}

/** JSON inside a script element: `<` is escaped so no value can close the element. */
const jsonForScript = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

/**
 * The one Not found: a wrong, revoked or expired link, a deleted project, a plan without private
 * links, an operator's pause and a spent pass all answer these same bytes (spec 7), so an address
 * says nothing about why it does not open.
 */
export const notFoundPage = Buffer.from(roomDocument({
  title: 'Not found',
  body: '<main class="notice"><h1>Not found</h1><p>There is nothing at this address.</p></main>',
}));

/** A notice in place of the room: paused, not taking visits, demo full. */
export function noticePage(projectName: string, heading: string, lines: string[]): string {
  const paragraphs = lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('');
  return roomDocument({
    title: `${projectName}: ${heading}`,
    body: `<main class="notice"><p class="project">${escapeHtml(projectName)}</p><h1>${escapeHtml(heading)}</h1>${paragraphs}</main>`,
  });
}
