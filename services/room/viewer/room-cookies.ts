import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hashSecret } from '../../core/infra/ids.js';
import type { Arrival } from './viewer-admission.js';

// The cookies a viewer's browser holds on the platform origin: one per room it entered, named
// after the entry address and holding `<session id>.<token>`, so two rooms never collide; and
// one browser id, for counting turn-aways once per browser. All `__Host-` (Secure, `/`, no
// Domain): a content origin cannot plant one for the platform (see SESSION_COOKIE).

const browserCookie = '__Host-pp_browser';
const roomCookiePrefix = '__Host-pp_r';
/** The attributes every one of them has; Secure is honoured on http://localhost and 127.0.0.1. */
export const platformCookie = { path: '/', httpOnly: true, secure: true, sameSite: 'lax' } as const;

/** The room cookie of an entry address: one per room a browser entered, so rooms never collide. */
export const roomCookieName = (key: string) => `${roomCookiePrefix}${hashSecret(key).subarray(0, 6).toString('hex')}`;

/** The token of `sessionId` among the browser's room cookies. */
export function tokenIn(req: FastifyRequest, sessionId: string): string | undefined {
  for (const [name, value] of Object.entries(req.cookies)) {
    if (name.startsWith(roomCookiePrefix) && value?.startsWith(`${sessionId}.`)) return value.slice(sessionId.length + 1);
  }
  return undefined;
}

/** The browser's random id, hashed: tells one browser from another without keeping the id. */
export function browserHashOf(req: FastifyRequest): Buffer | null {
  const id = req.cookies[browserCookie];
  return id && id.length <= 64 ? createHash('sha256').update(`browser:${id}`).digest() : null;
}

/** What the browser holds for this entry address; gives it a bounce id the first time. */
export function arrivalOf(req: FastifyRequest, reply: FastifyReply, key: string): Arrival {
  const [sessionId, token] = (req.cookies[roomCookieName(key)] ?? '').split('.', 2);
  let browserId = req.cookies[browserCookie];
  if (!browserId || browserId.length > 64) {
    browserId = randomBytes(16).toString('base64url');
    reply.setCookie(browserCookie, browserId, { ...platformCookie, maxAge: 365 * 86400 });
  }
  return { sessionId, token, browserId };
}
