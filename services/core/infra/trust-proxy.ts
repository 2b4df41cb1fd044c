import { isIP } from 'node:net';

// Which proxies may tell the platform who the client is (X-Forwarded-For), in the two forms
// fastify's `trustProxy` hands to proxy-addr: a number of hops, or the proxies' addresses.
// Trusting every sender (`true`) is refused: any client could then choose its own req.ip and
// step around every per-address throttle (services/api/auth/sign-in-limits.ts).

/** false: the socket's peer is the client. A number: that many proxies in front. A string: the proxies' addresses. */
export type TrustProxy = false | number | string;

// proxy-addr's names for ranges: 127.0.0.1/8 and ::1; 169.254.0.0/16 and fe80::/10; the private ranges and fc00::/7.
const NAMED = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** Why `entry` (one item of the comma-separated list) is not a proxy address proxy-addr takes; null when it is. */
function entryProblem(entry: string): string | null {
  if (NAMED.has(entry)) return null;
  const [address, range, ...more] = entry.split('/');
  const family = isIP(address);
  if (!family || more.length) return `"${entry}" is not an IP address, a CIDR range or loopback, linklocal, uniquelocal`;
  if (range === undefined) return null;
  if (/^\d{1,3}$/.test(range) && Number(range) <= (family === 4 ? 32 : 128)) return null;
  if (family === 4 && isIP(range) === 4) return null; // a netmask: 10.0.0.0/255.0.0.0
  return `"${entry}" has a range that is neither a prefix length nor a netmask`;
}

/** Parses TRUST_PROXY; throws a sentence saying what is wrong. Unset, empty and 0 mean no proxy. */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const text = (value ?? '').trim();
  if (text === '' || text === 'false') return false;
  if (/^\d+$/.test(text)) return Number(text) === 0 ? false : Number(text);
  if (text === 'true')
    throw new Error('true would let any client choose its address; give the number of proxies in front, or their addresses');
  const entries = text.split(',').map((e) => e.trim());
  for (const entry of entries) {
    const problem = entryProblem(entry);
    if (problem) throw new Error(`${problem}; give the number of proxies in front, or their addresses (comma-separated)`);
  }
  return entries.join(',');
}

/** The value for fastify's `trustProxy` option (its types leave out the hop count its code takes, so hops become the same test as a function). */
export function trustProxyOption(t: TrustProxy): false | string | ((address: string, hop: number) => boolean) {
  return typeof t === 'number' ? (_address, hop) => hop < t : t;
}
