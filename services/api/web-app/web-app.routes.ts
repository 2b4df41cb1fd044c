import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { samePath } from '@demo-rooms/contract';
import type { Deps } from '../api-deps.js';
import { providerNames, providerSetUp } from '../auth/providers.service.js';
import { passkeyOrigin } from '../account/passkeys.service.js';
import { authenticate } from '../routing/request-auth.js';
import { loadWebBuild, pickEncoding } from './web-assets.js';

// The builder's web app (services/web) on the platform origin: one index.html for every address
// of the app, under a strict Content-Security-Policy, never framed, never cached; its hashed
// assets cached for a year. A signed-out browser asking for a page of the app is sent to sign in
// first, and comes back to it after.

/** Addresses the app answers (wouter's routes in services/web/src/app.tsx). */
const SIGN_IN_PAGES = ['/login', '/auth/email'];
const SIGNED_IN_PAGES = [
  '/',
  '/device',
  '/invitations/:key',
  '/projects',
  '/projects/*',
  '/pipeline',
  '/analytics',
  '/journey/:linkId',
  '/usage',
  '/team',
  '/brand',
  '/community',
  '/webhooks',
  '/account',
  '/alerts',
];

// Styles from this origin, plus the <style> elements Radix's dialogs add while open (focus lock,
// scroll lock), which carry this response's nonce (services/web/src/main.tsx hands it over).
const policy = (nonce: string) =>
  [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' blob:",
    "connect-src 'self'",
    "font-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "manifest-src 'self'",
  ].join('; ');

const escapeAttr = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function registerWebApp(app: FastifyInstance, deps: Deps) {
  const build = loadWebBuild();
  // What the page cannot ask the API: which providers are set up, whether mail goes to a folder,
  // and the one origin where a passkey can work (read per page: the config may change in tests).
  const settings = () => ({
    providers: providerNames.filter((p) => providerSetUp(deps.config, p)),
    outbox: !deps.config.SMTP_URL,
    passkeyOrigin: passkeyOrigin(deps.config),
  });
  const page = (index: string) =>
    index.replace(
      '<!--pp-config-->',
      `<meta name="pp-config" content="${escapeAttr(JSON.stringify(settings()))}">\n<meta name="csp-nonce" content="NONCE">`,
    );
  const index = build.index;

  for (const [path, asset] of build.assets) {
    app.get(path, async (req, reply) => {
      const { body, encoding } = pickEncoding(asset, req.headers['accept-encoding']);
      if (encoding) reply.header('content-encoding', encoding);
      const longLived = path.startsWith('/assets/'); // hashed names: a new build is a new name
      return reply
        .type(asset.type)
        .header('vary', 'accept-encoding')
        .header('cache-control', longLived ? 'public, max-age=31536000, immutable' : 'public, max-age=3600')
        .header('x-content-type-options', 'nosniff')
        .send(body);
    });
  }

  const sendIndex = (reply: FastifyReply) => {
    if (!index)
      return reply.code(503).type('text/plain; charset=utf-8').send('The web app is not built: `npm start` builds it (services/web).\n');
    const nonce = randomBytes(16).toString('base64');
    return reply
      .header('content-security-policy', policy(nonce))
      .header('x-frame-options', 'DENY')
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .header('x-content-type-options', 'nosniff')
      .type('text/html; charset=utf-8')
      .send(page(index).replace('content="NONCE"', `content="${nonce}"`));
  };
  const signedIn = (req: FastifyRequest) =>
    authenticate(req, deps.sql, deps.config).then(
      () => true,
      () => false,
    );

  for (const path of SIGN_IN_PAGES) app.get(path, async (_req, reply) => sendIndex(reply));
  for (const path of SIGNED_IN_PAGES) {
    app.get(path, async (req, reply) => {
      if (!(await signedIn(req))) return reply.redirect(`/login?next=${encodeURIComponent(samePath(req.url))}`, 302);
      return sendIndex(reply);
    });
  }
}
