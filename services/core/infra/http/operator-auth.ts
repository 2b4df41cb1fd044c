import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '@demo-rooms/contract';
import { Refusal, roleCannot, signInFirst } from '../../rules/errors.js';

// The operator's pages (/ops/*) open to OPS_TOKEN alone, never to a builder's session. Prometheus
// sends the token as a bearer; a browser opening the dashboard is asked for it with HTTP Basic
// (any user name, the token as password), because a browser cannot add a bearer header itself.

/** Where the request's Authorization header puts a secret, and which scheme carried it. */
function presented(header: string | undefined): { scheme: 'bearer' | 'basic'; secret: string } | null {
  if (!header) return null;
  const bearer = /^Bearer\s+(\S+)$/i.exec(header);
  if (bearer) return { scheme: 'bearer', secret: bearer[1] };
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header);
  if (!basic) return null;
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : { scheme: 'basic', secret: decoded.slice(colon + 1) };
}

// Compared as sha256 digests: equal lengths for timingSafeEqual, and no early exit on a prefix.
const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * An onRequest hook: lets the operator token through and answers everything else in the spec's
 * error shape. No credential at all is 401 (with a Basic challenge, so a browser asks); a
 * builder's bearer token or session cookie is 403: it is a credential, just not one that can
 * operate the platform. Without OPS_TOKEN configured nothing gets through.
 * The hook replies itself instead of throwing: the dashboard's plugin installs its own error
 * handler, which would turn a thrown refusal into its own 500 body.
 */
export function operatorOnly(token: string | undefined) {
  const expected = token ? digest(token) : null;
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const given = presented(req.headers.authorization);
    if (expected && given && timingSafeEqual(digest(given.secret), expected)) {
      // A browser adds Basic credentials to any request for this origin, a forged cross-site one
      // too: a change made with them must come from the dashboard's own page.
      if (given.scheme === 'basic' && !isSafeMethod(req.method) && !sameOrigin(req)) {
        return refuse(reply, new Refusal(403, 'refused: cross-site request', 'csrf', { action: 'ops' }));
      }
      return;
    }
    const builderCredential = given?.scheme === 'bearer' || (!given && (req.headers.cookie ?? '').includes(`${SESSION_COOKIE}=`));
    if (builderCredential) return refuse(reply, roleCannot('ops'));
    reply.header('www-authenticate', 'Basic realm="demo-rooms operator", charset="UTF-8"');
    return refuse(reply, signInFirst());
  };
}

const isSafeMethod = (method: string) => method === 'GET' || method === 'HEAD' || method === 'OPTIONS';

/** The request's Origin is its own host (or, without Origin, the browser says same-origin). */
function sameOrigin(req: FastifyRequest): boolean {
  const origin = req.headers.origin;
  if (!origin) return req.headers['sec-fetch-site'] === 'same-origin';
  try {
    return new URL(origin).host === req.host;
  } catch {
    return false;
  }
}

function refuse(reply: FastifyReply, refusal: Refusal) {
  return reply.status(refusal.status).header('cache-control', 'no-store').send(refusal.body());
}
