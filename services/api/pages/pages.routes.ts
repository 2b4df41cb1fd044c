import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../api-deps.js';
import { authenticate } from '../routing/request-auth.js';
import { page, type PageKind } from './page-html.js';

// The platform's own pages, on the platform origin, until the builder's web app exists: the
// sign-in page, the page an emailed link opens, the device approval page `pitch login` sends the
// builder to, a team invitation's page, and a home page. Plain HTML with one script and one stylesheet from this origin,
// under a strict Content-Security-Policy, never framed, never cached.

const asset = (name: string) => readFileSync(new URL(`./${name}`, import.meta.url));
const assets: Record<string, { bytes: Buffer; type: string }> = {
  '/pages/pages.js': { bytes: asset('pages.js'), type: 'text/javascript; charset=utf-8' },
  '/pages/pages.css': { bytes: asset('pages.css'), type: 'text/css; charset=utf-8' },
  '/favicon.ico': { bytes: asset('favicon.svg'), type: 'image/svg+xml' },
};

const POLICY = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self'", "connect-src 'self'",
  "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'",
].join('; ');

/** `next` when it is a path on this origin; `/` otherwise (no open redirect through /login). */
export function samePath(next: unknown): string {
  if (typeof next !== 'string' || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\') || /[\s\\]/.test(next)) return '/';
  return next.slice(0, 500);
}

export function registerPages(app: FastifyInstance, deps: Deps) {
  const send = (reply: FastifyReply, kind: PageKind, data: Record<string, string> = {}) =>
    reply
      .header('content-security-policy', POLICY)
      .header('x-frame-options', 'DENY')
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .type('text/html; charset=utf-8')
      .send(page(kind, { ...data, outbox: deps.config.SMTP_URL ? '' : 'outbox' }));

  const signedIn = (req: FastifyRequest) => authenticate(req, deps.sql, deps.config).then(() => true, () => false);

  for (const [path, { bytes, type }] of Object.entries(assets)) {
    app.get(path, async (_req, reply) => reply.type(type).header('cache-control', 'public, max-age=3600').send(bytes));
  }

  app.get('/', async (req, reply) => ((await signedIn(req)) ? send(reply, 'home') : reply.redirect('/login', 302)));

  app.get('/login', async (req, reply) => send(reply, 'login', { next: samePath((req.query as { next?: string }).next) }));

  // The target of the emailed link: the page spends the token with a POST, never this GET, so a
  // mail scanner that follows links cannot use up the sign-in.
  app.get('/auth/email', async (_req, reply) => send(reply, 'email'));

  // The address createInvitation answers: the invited person, once signed in with the invited
  // email, reads whose team it is and joins with a click (the join is a POST, never this GET).
  app.get('/invitations/:key', async (req, reply) => {
    const key = String((req.params as { key: string }).key).replace(/[^A-Za-z0-9_-]/g, '').slice(0, 100);
    if (!(await signedIn(req))) return reply.redirect(`/login?next=${encodeURIComponent(`/invitations/${key}`)}`, 302);
    return send(reply, 'invitation', { key });
  });

  app.get('/device', async (req, reply) => {
    const code = String((req.query as { code?: string }).code ?? '').toUpperCase().replace(/[^A-Z0-9-]/g, '').slice(0, 20);
    if (!(await signedIn(req))) return reply.redirect(`/login?next=${encodeURIComponent(`/device?code=${code}`)}`, 302);
    return send(reply, 'device', { code });
  });
}
