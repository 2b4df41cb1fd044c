import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parallelGzip } from './parallel-gzip.js';

async function packed(input: Buffer, writes = 7): Promise<Buffer> {
  const out: Buffer[] = [];
  const step = Math.ceil(input.length / writes);
  const pieces = Array.from({ length: writes }, (_, i) => input.subarray(i * step, (i + 1) * step)).filter((p) => p.length);
  await pipeline(Readable.from(pieces), parallelGzip(6, 3), async function* (source) {
    for await (const chunk of source) out.push(chunk as Buffer);
  });
  return Buffer.concat(out);
}

describe('parallelGzip', () => {
  it('gives a gzip stream that unpacks to the same bytes, text and random mixed', async () => {
    const text = Buffer.from('the quick brown fox jumps over the lazy dog\n'.repeat(80_000));
    const input = Buffer.concat([text, randomBytes(3_500_000), text.subarray(0, 1234)]);
    const gz = await packed(input);
    expect(gunzipSync(gz).equals(input)).toBe(true);
    const streamed: Buffer[] = [];
    await pipeline(Readable.from([gz]), createGunzip(), async function* (source) {
      for await (const chunk of source) streamed.push(chunk as Buffer);
    });
    expect(Buffer.concat(streamed).equals(input)).toBe(true);
    // The text deflates, the random bytes are stored: a little over their own size.
    expect(gz.length).toBeLessThan(3_500_000 + text.length / 10);
  });

  it('gives a valid gzip stream for empty input', async () => {
    expect(gunzipSync(await packed(Buffer.alloc(0), 1)).length).toBe(0);
  });
});
