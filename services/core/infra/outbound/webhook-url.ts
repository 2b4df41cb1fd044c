import { addressLiteralOf, isPublicAddress } from './public-address.js';

// A webhook endpoint's address, checked when it is stored (a clear 400) and again, with DNS,
// before each delivery (pinned-post.ts): a name may start resolving elsewhere later.

export const WEBHOOK_URL_MAX = 2000;

/**
 * Why `raw` cannot be sent to, or null when it can, before any DNS: https only (http too, and
 * private hosts, when local development allows them), no user name or password in it, and no
 * private, loopback or link-local address literal. A name is judged by what it resolves to, at
 * each delivery (pinned-post.ts).
 */
export function urlShapeProblem(raw: string, allowPrivate: boolean): string | null {
  if (raw.length > WEBHOOK_URL_MAX) return `at most ${WEBHOOK_URL_MAX} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not an address';
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return 'must start with https://';
  if (url.username || url.password) return 'must not carry a user name or password';
  if (allowPrivate) return null;
  const literal = addressLiteralOf(url.hostname);
  if (literal !== null && !isPublicAddress(literal)) return 'must not be a private, loopback or link-local address';
  return null;
}

/**
 * Why `raw` cannot be stored as an endpoint (a clear 400 at create time), or null: the shape's
 * rules, and names that can only be local: `localhost` (always loopback) and a bare name without
 * a dot (a local network's).
 */
export function webhookUrlProblem(raw: string, allowPrivate: boolean): string | null {
  const shape = urlShapeProblem(raw, allowPrivate);
  if (shape || allowPrivate) return shape;
  const host = new URL(raw).hostname.toLowerCase().replace(/\.$/, '');
  if (addressLiteralOf(host) !== null) return null;
  if (host === 'localhost' || host.endsWith('.localhost')) return 'must not be a loopback address';
  if (!host.includes('.')) return 'must be a public host name';
  return null;
}
