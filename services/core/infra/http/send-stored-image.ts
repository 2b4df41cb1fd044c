import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Storage } from '../storage.js';

// An image the platform re-encoded (services/core/rules/images.ts), sent from the object store with an
// ETag of its content hash: a browser that has it already gets 304 and no bytes. Served as an
// image only, never sniffed into anything else, and inert if opened on its own.

export async function sendStoredImage(
  req: FastifyRequest,
  reply: FastifyReply,
  storage: Storage,
  /** `type` when the row knows it; else the store's own Content-Type of the object. */
  image: { key: string; type?: string; hash: string },
  cacheControl: string,
) {
  const etag = `"${image.hash}"`;
  reply
    .header('etag', etag)
    .header('cache-control', cacheControl)
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; sandbox");
  if (etagMatches(req.headers['if-none-match'], etag)) return reply.status(304).send();
  const object = await storage.get(image.key);
  if (!object) return null;
  return reply
    .status(200)
    .header('content-type', image.type ?? object.contentType ?? 'application/octet-stream')
    .header('content-length', String(object.size))
    .header('content-disposition', 'inline')
    .send(object.body);
}

/** If-None-Match holds `etag`: one of a comma-separated list, weak or strong, or `*`. */
export const etagMatches = (header: string | undefined, etag: string) =>
  Boolean(header) &&
  header!.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
