// The HTML of the platform's plain pages (pages.routes.ts). Every value is escaped; the pages'
// behaviour is in pages.js, chosen by <body data-page>.

export type PageKind = 'login' | 'email' | 'device' | 'home' | 'invitation';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const bodies: Record<PageKind, (data: Record<string, string>) => { title: string; html: string }> = {
  login: (d) => ({
    title: 'Sign in',
    html: `<h1>Sign in</h1>
<p>We email you a link that signs you in; no password.</p>
<form novalidate>
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="email" required autofocus>
  <button type="submit">Email me a sign-in link</button>
</form>
<p role="status" aria-live="polite"></p>
${d.outbox ? '<p id="outbox" class="muted" hidden>This platform sends no mail (no SMTP_URL): the link is in a file under <code>.data/outbox/</code> where <code>npm start</code> runs.</p>' : ''}
${d.next !== '/' ? `<p class="muted">You will go on to <code>${escapeHtml(d.next)}</code> once signed in.</p>` : ''}`,
  }),
  email: () => ({
    title: 'Signing in',
    html: `<h1>Signing you in…</h1>
<p role="status" aria-live="polite"></p>
<p class="muted"><a href="/login">Ask for a new link</a></p>`,
  }),
  device: (d) => ({
    title: 'Approve the pitch tool',
    html: `<h1>Sign in the pitch tool?</h1>
<p>Your terminal shows this code. Approve only if it is the same and you ran <code>pitch login</code> yourself.</p>
<p class="code">${escapeHtml(d.code || '—')}</p>
<p><button type="button" data-code="${escapeHtml(d.code)}"${d.code ? '' : ' disabled'}>Approve</button></p>
<p role="status" aria-live="polite"></p>`,
  }),
  invitation: (d) => ({
    title: 'An invitation',
    html: `<h1>An invitation to a team</h1>
<p id="invited" data-key="${escapeHtml(d.key)}">Reading the invitation…</p>
<p><button type="button" hidden>Join the team</button></p>
<p role="status" aria-live="polite"></p>`,
  }),
  home: () => ({
    title: 'Demo rooms',
    html: `<h1>Demo rooms</h1>
<p>Signed in as <strong id="who">…</strong>.</p>
<p>Deploy from a project folder with the command-line tool (<code>pitch deploy</code>, see docs/cli.md); the whole API is described at <a href="/api/openapi.json">/api/openapi.json</a>.</p>
<p><button type="button">Sign out</button></p>
<p role="status" aria-live="polite"></p>`,
  }),
};

export function page(kind: PageKind, data: Record<string, string>): string {
  const { title, html } = bodies[kind](data);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Demo rooms</title>
<link rel="icon" href="/favicon.ico">
<link rel="stylesheet" href="/pages/pages.css">
<script src="/pages/pages.js" defer></script>
</head>
<body data-page="${kind}">
<main>
${html}
</main>
</body>
</html>
`;
}
