import { createReadStream } from 'node:fs';
import type { DirectPart, DirectUpload } from '@demo-rooms/contract';
import { requestFor } from '../node-http.js';
import { userAgent } from '../version.js';
import { eachAtMost } from '../each-at-most.js';

/** Each part gets this many tries before the deploy gives up (the first and two retries). */
export const partTries = 3;
/** Parts in flight at once: enough to fill an uplink, few enough to keep each part fast. */
export const partsAtOnce = 3;

export interface DirectUploadOptions {
  direct: DirectUpload;
  file: string;
  /** Bytes as they leave; a failed try gives its bytes back (negative count). */
  onBytes: (count: number) => void;
  /** One line per part sent, and per try that failed. */
  onPart: (line: string) => void;
}

/**
 * Sends an archive to the object store's presigned URLs (issue 32): a part at a time from its
 * own slice of the file, up to `partsAtOnce` together, each tried up to `partTries` times on its
 * own (a part that failed is sent again whole; the others stand). No token goes with them: the
 * URLs carry their own authority. Answers each part's ETag for completeUpload.
 */
export async function uploadDirect(options: DirectUploadOptions): Promise<{ partNumber: number; etag: string }[]> {
  const { parts } = options.direct;
  const starts = parts.map((_, i) => parts.slice(0, i).reduce((sum, p) => sum + p.sizeBytes, 0));
  const etags: { partNumber: number; etag: string }[] = [];
  const sends = parts.map((part, i) => async () => {
    etags[i] = { partNumber: part.partNumber, etag: await sendPart(options, part, starts[i]!) };
    options.onPart(`part ${part.partNumber}/${parts.length} sent (${part.sizeBytes} bytes)`);
  });
  await eachAtMost(partsAtOnce, sends);
  return etags;
}

async function sendPart(options: DirectUploadOptions, part: DirectPart, start: number): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    let sent = 0;
    try {
      return await putPart(options, part, start, (n) => {
        sent += n;
        options.onBytes(n);
      });
    } catch (err) {
      options.onBytes(-sent);
      const why = err instanceof Error ? err.message : String(err);
      if (attempt >= partTries) throw new Error(`part ${part.partNumber} failed ${partTries} times; the last: ${why}`);
      options.onPart(`part ${part.partNumber}/${options.direct.parts.length}: try ${attempt} failed (${why}); trying again`);
    }
  }
}

/** One PUT of the part's slice, streamed from disk with its exact length and the signed type. */
function putPart(options: DirectUploadOptions, part: DirectPart, start: number, counted: (n: number) => void): Promise<string> {
  const url = new URL(part.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.reject(new Error(`not an http(s) address: ${url.protocol}`));
  const request = requestFor(url);
  return new Promise((resolve, reject) => {
    const source = createReadStream(options.file, { start, end: start + part.sizeBytes - 1, highWaterMark: 1 << 20 });
    // Once answered or failed, the file stops being read and counted: a failed try gives back
    // exactly what it counted.
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      source.destroy();
      outcome();
    };
    const req = request(
      url,
      {
        method: 'PUT',
        headers: { 'content-type': options.direct.contentType, 'content-length': part.sizeBytes, 'user-agent': userAgent },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (err) => settle(() => reject(err)));
        res.on('end', () => {
          const etag = res.headers.etag;
          if (res.statusCode === 200 && etag) return settle(() => resolve(etag));
          const code = /<Code>([^<]{1,100})<\/Code>/.exec(Buffer.concat(chunks).toString('utf8'))?.[1];
          settle(() => reject(new Error(`the store answered ${res.statusCode}${code ? ` ${code}` : ''}`)));
        });
      },
    );
    req.on('error', (err) => settle(() => reject(err)));
    source.on('data', (chunk) => settled || counted(chunk.length));
    source.on('error', (err) => req.destroy(err));
    source.pipe(req);
  });
}
