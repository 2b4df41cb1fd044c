import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '@demo-rooms/contract';
import type { Config } from '../../core/infra/config.js';
import type { Sql } from '../../core/infra/db.js';
import { Refusal, signInFirst } from '../../core/rules/errors.js';
import { resolveSession, type SessionAuth } from '../../data/sessions.sql.js';

export const sessionCookie = SESSION_COOKIE;

// Always Secure, as `__Host-` demands; browsers take Secure cookies from http://localhost too.
const cookieOptions = { path: '/', httpOnly: true, sameSite: 'lax', secure: true } as const;

/** Hands the browser its session: every sign-in that ends in a web session sets it this way. */
export function setSessionCookie(reply: FastifyReply, token: string, expires: Date): void {
  reply.setCookie(sessionCookie, token, { ...cookieOptions, expires });
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.clearCookie(sessionCookie, cookieOptions);
}

/**
 * How many session cookies the request carries, with or without the prefix: a browser sends a
 * cookie tossed in by another origin beside the real one, and a server reading "the first"
 * could be fixed to the attacker's session. @fastify/cookie keeps one value per name, so the
 * raw header is counted.
 */
function sessionCookiesIn(header: string | undefined): number {
  if (!header) return 0;
  const bare = sessionCookie.replace(/^__Host-/, '');
  return header.split(';').filter((part) => {
    const name = part.slice(0, part.indexOf('=') < 0 ? part.length : part.indexOf('=')).trim();
    return name === sessionCookie || name === bare;
  }).length;
}

export type Auth = SessionAuth & { via: 'cookie' | 'bearer' };

/** The bearer token of the request, or its session cookie; null when it carries neither. */
export function credentialOf(req: FastifyRequest): { token: string; via: Auth['via'] } | null {
  const header = req.headers.authorization;
  if (header) {
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    return m ? { token: m[1], via: 'bearer' } : null;
  }
  // Two of them is a planted one: refuse rather than guess which is the person's own.
  if (sessionCookiesIn(req.headers.cookie) > 1) return null;
  const cookie = req.cookies?.[sessionCookie];
  return cookie ? { token: cookie, via: 'cookie' } : null;
}

/**
 * Who is calling. A connector token serves the connector only, so this API treats it as no
 * session at all; a cookie never authenticates a cross-site mutation.
 */
export async function authenticate(req: FastifyRequest, sql: Sql, config: Config): Promise<Auth> {
  const cred = credentialOf(req);
  if (!cred) throw signInFirst();
  const session = await resolveSession(sql, cred.token);
  if (!session) throw signInFirst();
  const expectedKind = cred.via === 'cookie' ? ['web'] : ['web', 'cli'];
  if (!expectedKind.includes(session.kind)) throw signInFirst();
  if (cred.via === 'cookie' && !isSafeMethod(req.method)) checkSameOrigin(req, config);
  return { ...session, via: cred.via };
}

const isSafeMethod = (m: string) => m === 'GET' || m === 'HEAD' || m === 'OPTIONS';

/**
 * CSRF defence for cookie sessions (OWASP's origin check): a mutation must come from the
 * platform's own origin. SameSite=Lax already stops most cross-site posts; this closes the rest
 * (same-site subdomains such as content origins, and old browsers).
 */
function checkSameOrigin(req: FastifyRequest, config: Config): void {
  const origin = req.headers.origin;
  const site = req.headers['sec-fetch-site'];
  const ok = origin ? origin === new URL(config.publicUrl).origin : site === 'same-origin';
  if (!ok) throw new Refusal(403, 'refused: cross-site request', 'csrf', { action: `${req.method} ${req.routeOptions.url}` });
}
