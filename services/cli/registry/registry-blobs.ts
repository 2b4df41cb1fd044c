import { Readable } from 'node:stream';
import { Refusal } from '../refusal.js';
import { userAgent } from '../version.js';
import type { PushTarget } from './push-image.js';

// Reading blobs back from the project's repository (issue 48, item 1): the live build's config
// and the layers the in-process build takes its folders' owners from, and the layers the local
// engine lacks when it pulls the new image to rehearse it. fetch follows a registry's redirect to
// its storage and drops the token on the way, as a registry client should.

/** A blob's bytes as a stream, or null when the repository lacks it. */
export async function openBlob(target: PushTarget, digest: string): Promise<Readable | null> {
  const reply = await fetch(`${target.registryUrl}/v2/${target.repository}/blobs/${digest}`, {
    headers: { authorization: `Bearer ${target.token}`, 'user-agent': userAgent },
  });
  if (reply.status === 404) {
    await reply.body?.cancel();
    return null;
  }
  if (reply.status !== 200 || !reply.body) {
    await reply.body?.cancel();
    throw new Refusal(`reading ${digest} from the registry: it answered ${reply.status}`);
  }
  return Readable.fromWeb(reply.body as import('node:stream/web').ReadableStream);
}

/** A small blob (an image config) whole, or null when the repository lacks it; at most `max` bytes. */
export async function readSmallBlob(target: PushTarget, digest: string, max = 4 << 20): Promise<Buffer | null> {
  const stream = await openBlob(target, digest);
  if (!stream) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > max) {
      stream.destroy();
      throw new Refusal(`the registry's blob ${digest} is larger than ${max} bytes, not an image config`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
