import type { Agent, IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';

// node:http and node:https, loaded with require. Since Node 22, node:http has three getters
// (WebSocket, CloseEvent, MessageEvent) that load all of Node's undici, about 50 ms here; an ESM
// import of a builtin reads every export to make its namespace, so `import … from 'node:http'`
// pays that and require does not (nodejs/node#57649, #59686). The tool wants neither WebSocket
// nor fetch on its commands' way: an unchanged redeploy's whole own work is about 0.15 s.
// Each is loaded at its first use, as `pitch validate` needs neither (node:https alone, with TLS,
// is about 20 ms). Types still come from `import type`, which loads nothing.
const require = createRequire(import.meta.url);

/** node:http. */
export const http = (): typeof import('node:http') => require('node:http');
/** node:https. */
export const https = (): typeof import('node:https') => require('node:https');

/**
 * Where a request to a local engine goes: its unix socket. The empty `servername` because
 * node:http works out a TLS server name for every new connection, one on a unix socket too, from
 * the host it assumes (`localhost`), and its test of that name for an IP address compiles V8's
 * IPv6 expression at the first call: 7-10 ms of the engine's first answer here.
 */
export const onUnixSocket = (socketPath: string) => ({ socketPath, servername: '' });

/** The request function of the URL's scheme. */
export function requestFor(url: URL): typeof import('node:http').request | typeof import('node:https').request {
  return url.protocol === 'https:' ? https().request : http().request;
}

/** What a request sends beyond its URL. */
export interface ExchangeOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** The connections it may reuse: the module's kept-alive global agent when not given. */
  agent?: Agent;
  /** How long it may send or receive nothing, its reply's body included, before it fails (ETIMEDOUT). */
  idleMs: number;
}

/**
 * One request, following no redirect: the reply, its body still to read (`resume()` it when it is
 * not wanted, so the connection goes back to its agent). Fails with the system's error.
 */
export function exchange(url: URL, options: ExchangeOptions): Promise<IncomingMessage> {
  const { body } = options;
  const headers = { ...options.headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) };
  return new Promise((resolve, reject) => {
    const req = requestFor(url)(url, { method: options.method ?? 'GET', headers, agent: options.agent, timeout: options.idleMs }, resolve);
    req.on('timeout', () => req.destroy(Object.assign(new Error(`nothing came for ${options.idleMs / 1000} s`), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.end(body);
  });
}

/** A reply's body whole, failing with `tooLarge()` once it passes `max` bytes (the rest is not read). */
export async function bodyAtMost(body: Readable, max: number, tooLarge: () => Error): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) {
      body.destroy();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
