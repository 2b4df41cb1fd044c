import { lookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { rootCertificates } from 'node:tls';
import { Agent, request } from 'undici';
import { addressLiteralOf, isPublicAddress } from './public-address.js';
import { urlShapeProblem } from './webhook-url.js';

// One POST to an address a builder gave (a webhook endpoint), safe against request forgery
// (docs/decisions/webhooks.md): the name is resolved once and the connection made to that very
// address (so a second answer of the DNS cannot point it inward), private addresses refused,
// redirects never followed, each step given a small deadline, and only the first KiB of the
// answer read.

/** The most of an answer's body kept for the log, in bytes. */
export const EXCERPT_BYTES = 1024;

export interface PinnedPostOptions {
  headers: Record<string, string>;
  body: string;
  /** Local development: http and private addresses allowed (WEBHOOKS_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  connectTimeoutMs: number;
  responseTimeoutMs: number;
  /** Certificate authorities trusted besides the system's (tests' self-signed receiver). */
  extraCa?: string;
}

export interface PostOutcome {
  ok: boolean;
  /** The HTTP status answered, or null when none came. */
  statusCode: number | null;
  durationMs: number;
  /** Why it failed, in a few words; null when it succeeded. */
  error: string | null;
  bodyExcerpt: string | null;
}

class Refused extends Error {}

export async function postPinned(rawUrl: string, opts: PinnedPostOptions): Promise<PostOutcome> {
  const started = performance.now();
  const done = (o: Omit<PostOutcome, 'durationMs'>): PostOutcome => ({ ...o, durationMs: Math.round(performance.now() - started) });
  let agent: Agent | undefined;
  try {
    const problem = urlShapeProblem(rawUrl, opts.allowPrivate);
    if (problem) throw new Refused(`refused: the address ${problem}`);
    const url = new URL(rawUrl);
    const pinned = await resolveOnce(url.hostname, opts);
    agent = new Agent({
      connect: {
        timeout: opts.connectTimeoutMs,
        // Every connection of this delivery goes to the address checked above, whatever the DNS says now.
        lookup: (_host, options, callback) => {
          if ((options as { all?: boolean }).all) (callback as (e: null, a: LookupAddress[]) => void)(null, [pinned]);
          else callback(null, pinned.address, pinned.family);
        },
        ...(opts.extraCa ? { ca: [...rootCertificates, opts.extraCa] } : {}),
      },
      headersTimeout: opts.responseTimeoutMs,
      bodyTimeout: opts.responseTimeoutMs,
    });
    // undici follows no redirect unless told to: a 3xx comes back as it is, and counts as a failure.
    const res = await request(url, {
      method: 'POST',
      headers: opts.headers,
      body: opts.body,
      dispatcher: agent,
      signal: AbortSignal.timeout(opts.connectTimeoutMs + opts.responseTimeoutMs),
    });
    const bodyExcerpt = await excerptOf(res.body);
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    const error = ok ? null : res.statusCode >= 300 && res.statusCode < 400 ? 'redirect (not followed)' : `HTTP ${res.statusCode}`;
    return done({ ok, statusCode: res.statusCode, error, bodyExcerpt });
  } catch (err) {
    return done({ ok: false, statusCode: null, error: failureOf(err), bodyExcerpt: null });
  } finally {
    await agent?.destroy().catch(() => {});
  }
}

/** The one address this delivery connects to: every address the name has must be public. */
async function resolveOnce(hostname: string, opts: PinnedPostOptions): Promise<LookupAddress> {
  const literal = addressLiteralOf(hostname);
  const addresses = literal
    ? [{ address: literal, family: literal.includes(':') ? 6 : 4 }]
    : await lookup(hostname, { all: true, order: 'verbatim' }).catch(() => {
        throw new Refused(`could not resolve ${hostname}`);
      });
  if (addresses.length === 0) throw new Refused(`could not resolve ${hostname}`);
  // One private answer among public ones refuses the lot: a name that half points inward is not trusted.
  if (!opts.allowPrivate && addresses.some((a) => !isPublicAddress(a.address))) {
    throw new Refused('refused: the address resolves to a private, loopback or link-local address');
  }
  return addresses[0];
}

/** The first EXCERPT_BYTES of the body as text; the rest is never read (the connection is dropped). */
async function excerptOf(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= EXCERPT_BYTES) break;
  }
  body.destroy();
  if (size === 0) return null;
  // Text columns cannot hold NUL; a cut character at the end decodes as U+FFFD.
  return Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8').replaceAll('\u0000', '').slice(0, EXCERPT_BYTES);
}

function failureOf(err: unknown): string {
  if (err instanceof Refused) return err.message;
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code;
  if (
    e.name === 'TimeoutError' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT'
  ) {
    return 'timeout';
  }
  return `connection failed: ${code ?? e.message ?? 'unknown'}`.slice(0, 300);
}
