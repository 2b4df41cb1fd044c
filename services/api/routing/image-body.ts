import type { FastifyRequest } from 'fastify';
import { Refusal, refused } from '../../core/rules/errors.js';

// The body of an image PUT (a photo, a logo, a cover): raw bytes, read whole since they are
// small, but never more than the limit. The declared length is checked before a byte is read, and
// the count again while reading, so a body that lies about its length stops at the limit too.

export async function imageBody(req: FastifyRequest, maxBytes: number, what: string): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared === undefined) throw new Refusal(411, 'length required');
  if (!/^\d+$/.test(declared)) throw refused(422, 'file', `${what}: Content-Length must be a number of bytes`);
  if (Number(declared) > maxBytes) throw refused(422, 'file', `${what}: the image is ${declared} bytes; at most ${maxBytes} are taken`);
  const chunks: Buffer[] = [];
  let seen = 0;
  for await (const chunk of req.raw as AsyncIterable<Buffer>) {
    seen += chunk.length;
    if (seen > maxBytes) {
      req.raw.destroy();
      throw refused(422, 'file', `${what}: the image is over ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
