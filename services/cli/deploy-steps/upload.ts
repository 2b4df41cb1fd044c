import { createReadStream } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, ErrorBody } from '@demo-rooms/contract';
import { requestFor } from '../node-http.js';
import { Refusal } from '../refusal.js';
import { userAgent } from '../version.js';

export interface UploadOptions {
  apiUrl: string;
  token: string;
  /** From startUpload: a path on the API's own address. */
  putUrl: string;
  file: string;
  sizeBytes: number;
  /** Bytes as they leave; a failed try gives its bytes back (negative count). */
  onBytes: (count: number) => void;
  /** One line per try that failed and is tried again. */
  onRetry?: (line: string) => void;
}

/** Tries of the PUT before the deploy gives up: the first and two more. */
export const uploadTries = 3;

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
 * Whether a failed try may be tried again: the platform or a gateway in front of it failed (5xx),
 * or the connection broke before any answer. A failed PUT puts the upload back to `declared`
 * (uploads.service.ts), so the next try starts afresh; a `used` answer right after a broken try
 * is the platform not yet done putting it back. A 4xx says what is wrong with the upload: trying
 * it again would only say it again.
 */
function worthAnotherTry(err: unknown, afterBreak: boolean): boolean {
  if (!(err instanceof ApiError)) return true;
  return err.status >= 500 || (afterBreak && err.status === 422 && err.body.reason === 'used');
}

/**
 * PUTs the archive streamed from disk with its exact Content-Length (spec 4.1), counting bytes as
 * they leave, up to `uploadTries` times while the failure is the platform's or the line's (as the
 * direct upload tries each part: direct-upload.ts). Anything but 204 that is not worth another try
 * is the platform's refusal, thrown as an ApiError.
 */
export async function uploadFile(options: UploadOptions): Promise<void> {
  const url = uploadAddress(options.apiUrl, options.putUrl);
  let afterBreak = false;
  for (let attempt = 1; ; attempt++) {
    let sent = 0;
    // A try that has failed is uncounted once, whole: the file may still be read into its request
    // after the platform answered (a gateway's 503 before the last byte), and those bytes are not
    // counted again (the progress went past 100 %, and a CI run saw 5 MB counted for 3 MB).
    let failed = false;
    try {
      return await putOnce(url, options, (n) => {
        if (failed) return;
        sent += n;
        options.onBytes(n);
      });
    } catch (err) {
      failed = true;
      options.onBytes(-sent);
      if (attempt >= uploadTries || !worthAnotherTry(err, afterBreak)) throw err;
      afterBreak = !(err instanceof ApiError);
      const why = err instanceof ApiError ? `${err.status} ${err.body.error}` : (err as Error).message;
      options.onRetry?.(`upload: try ${attempt} failed (${why}); trying again`);
      await sleep(500 * 2 ** (attempt - 1));
    }
  }
}

function putOnce(url: URL, options: UploadOptions, counted: (n: number) => void): Promise<void> {
  const request = requestFor(url);
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
    source.on('data', (chunk) => counted(chunk.length));
    source.on('error', (err) => req.destroy(err));
    source.pipe(req);
  });
}
