import type { Readable } from 'node:stream';
import { bodyAtMost, exchange } from '../node-http.js';
import { Refusal } from '../refusal.js';
import { userAgent } from '../version.js';
import type { PushTarget } from './push-image.js';

// Reading blobs back from the project's repository (issue 48, item 1): the live build's config
// and the layers the in-process build takes its folders' owners from, and the layers the local
// engine lacks when it pulls the new image to rehearse it. Over node:http, not fetch (fetch loads
// Node's undici, config/platform-request.ts); a registry's redirect to its storage is followed, and
// the token is dropped on the way to another origin, as fetch and every registry client do.

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MOST_REDIRECTS = 5;
/** How long a blob's read may see nothing come, as undici's own default. */
const BLOB_IDLE_MS = 300_000;

/** A blob's bytes as a stream, or null when the repository lacks it. */
export async function openBlob(target: PushTarget, digest: string): Promise<Readable | null> {
  let url = new URL(`${target.registryUrl}/v2/${target.repository}/blobs/${digest}`);
  let headers: Record<string, string> = { authorization: `Bearer ${target.token}`, 'user-agent': userAgent };
  for (let redirects = 0; ; redirects++) {
    const reply = await exchange(url, { headers, idleMs: BLOB_IDLE_MS });
    const status = reply.statusCode ?? 0;
    if (REDIRECTS.has(status) && reply.headers.location && redirects < MOST_REDIRECTS) {
      reply.resume();
      const next = new URL(reply.headers.location, url);
      if (next.origin !== url.origin) headers = { 'user-agent': userAgent };
      url = next;
      continue;
    }
    if (status === 200) return reply;
    reply.resume();
    if (status === 404) return null;
    throw new Refusal(`reading ${digest} from the registry: it answered ${status}`);
  }
}

/** A small blob (an image config) whole, or null when the repository lacks it; at most `max` bytes. */
export async function readSmallBlob(target: PushTarget, digest: string, max = 4 << 20): Promise<Buffer | null> {
  const stream = await openBlob(target, digest);
  if (!stream) return null;
  return bodyAtMost(stream, max, () => new Refusal(`the registry's blob ${digest} is larger than ${max} bytes, not an image config`));
}
