import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { requestFor } from '../node-http.js';
import { userAgent } from '../version.js';

export interface RegistryReply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * One request to the registry with its bearer token. A streamed body goes with its exact
 * Content-Length (the registry's monolithic upload takes it; fetch would send it chunked).
 * Replies are small (errors, manifests): at most 4 MB is kept.
 */
export function registryRequest(
  url: string,
  options: { method: string; token: string; headers?: Record<string, string | number>; body?: Readable | Buffer },
): Promise<RegistryReply> {
  const target = new URL(url);
  const request = requestFor(target);
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        method: options.method,
        headers: { authorization: `Bearer ${options.token}`, 'user-agent': userAgent, ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (chunk: Buffer) => {
          if (kept < 4 << 20) chunks.push(chunk);
          kept += chunk.length;
        });
        res.on('error', reject);
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    const body = options.body;
    if (!body) req.end();
    else if (Buffer.isBuffer(body)) req.end(body);
    else {
      body.on('error', (err) => req.destroy(err));
      body.pipe(req);
    }
  });
}

/** The registry's error codes in a reply body (`{"errors":[{"code":…}]}`), joined; empty when there are none. */
export function registryErrors(reply: RegistryReply): string {
  try {
    const body = JSON.parse(reply.text) as { errors?: { code?: string; message?: string }[] };
    return (body.errors ?? []).map((e) => `${e.code ?? '?'}${e.message ? ` (${e.message})` : ''}`).join(', ');
  } catch {
    return '';
  }
}
