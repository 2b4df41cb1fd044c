import { createReadStream } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ApiError, ErrorBody } from '@demo-rooms/contract';
import { Refusal } from '../refusal.js';
import { userAgent } from '../version.js';

export interface UploadOptions {
  apiUrl: string;
  token: string;
  /** From startUpload: a path on the API's own address. */
  putUrl: string;
  file: string;
  sizeBytes: number;
  onBytes: (count: number) => void;
}

/**
 * putUrl is a path on the API's address (docs/decisions/contract-and-wire.md: `/api/uploads/:id`), joined as the client joins paths. The PUT carries
 * the bearer token, so an address on any other origin (an absolute URL elsewhere, or a path such as `@evil.example/x`
 * that moves the host once joined) is refused before a byte or the token leaves.
 */
export function uploadAddress(apiUrl: string, putUrl: string): URL {
  let url: URL | null = null;
  try {
    url = /^https?:\/\//.test(putUrl) ? new URL(putUrl) : new URL(apiUrl + putUrl);
  } catch {}
  const own = new URL(apiUrl).origin;
  if (url?.origin !== own) {
    throw new Refusal(
      `the platform gave an upload address off its own origin (${url?.origin ?? JSON.stringify(putUrl)}, not ${own}); nothing was sent`,
      'your token goes only to the platform address you chose: check --api or PITCH_API',
    );
  }
  return url;
}

/**
 * PUTs the archive streamed from disk with its exact Content-Length (spec 4.1), counting bytes as
 * they leave. Anything but 204 is the platform's refusal, thrown as an ApiError.
 */
export function uploadFile(options: UploadOptions): Promise<void> {
  const url = uploadAddress(options.apiUrl, options.putUrl);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(
      url,
      {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${options.token}`,
          'content-type': 'application/gzip',
          'content-length': options.sizeBytes,
          'user-agent': userAgent,
        },
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          if (res.statusCode === 204) return resolve();
          const text = Buffer.concat(chunks).toString('utf8');
          let body: ErrorBody;
          try {
            body = ErrorBody.parse(JSON.parse(text));
          } catch {
            body = { error: text.slice(0, 200) || res.statusMessage || 'no reply' };
          }
          reject(new ApiError(res.statusCode ?? 0, body));
        });
      },
    );
    // A platform that refuses early (411, 422 size) answers and closes while bytes still flow: the
    // broken pipe comes first, the reply just after it, and the reply is what says why.
    req.on('error', (err) => setTimeout(() => answered || reject(err), 1000));
    const source = createReadStream(options.file, { highWaterMark: 1 << 20 });
    source.on('data', (chunk) => options.onBytes(chunk.length));
    source.on('error', (err) => req.destroy(err));
    source.pipe(req);
  });
}
