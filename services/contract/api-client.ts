import { ApiError, ContractError, operationWords } from './api-errors.js';
import { ErrorBody } from './errors.schema.js';
import type { BodyOf, ParamsOf, ReplyOf, RouteDef } from './route.js';
import { routes, type Operation, type Routes } from './routes/route-table.js';

// The typed client of the contract, used by the CLI, the connector and the tests. It checks every
// reply against the same schemas the server uses: a reply that does not fit is an error here too.

export { ApiError, ContractError, operationWords };

/** What the client reads of a reply: fetch's Response has it, and so can a lighter transport. */
export interface TransportReply {
  status: number;
  statusText: string;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

/** How the client sends a call: fetch by default; the CLI brings one over node:http (platform-request.ts). */
export type Transport = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: BodyInit },
) => Promise<TransportReply>;

export interface ClientOptions {
  baseUrl: string;
  token?: string;
  /** Extra headers on every request (a cookie, a user agent). */
  headers?: Record<string, string>;
  fetch?: Transport;
}

export type CallArgs<R extends RouteDef> = (ParamsOf<R> extends undefined ? { params?: undefined } : { params: ParamsOf<R> }) &
  (BodyOf<R> extends undefined ? { body?: undefined } : { body: BodyOf<R> }) & { headers?: Record<string, string> };

/** The operations whose body is raw bytes. */
export type RawOperation = { [O in Operation]: Routes[O] extends { raw: true } ? O : never }[Operation];

export function pathOf(r: RouteDef, params: Record<string, string> = {}): string {
  return r.path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

export function createClient(opts: ClientOptions) {
  const doFetch: Transport = opts.fetch ?? fetch;
  const base = opts.baseUrl.replace(/\/$/, '');

  async function call<O extends Operation>(
    operation: O,
    ...args: keyof CallArgs<Routes[O]> extends never ? [] : [CallArgs<Routes[O]>?]
  ): Promise<ReplyOf<Routes[O]>> {
    const a = (args[0] ?? {}) as { params?: Record<string, string>; body?: unknown; headers?: Record<string, string> };
    const json = a.body === undefined ? undefined : JSON.stringify(a.body);
    return send(operation, a.params, json, { ...(json === undefined ? {} : { 'content-type': 'application/json' }), ...a.headers });
  }

  /** An upload PUT (`raw` in the route table): the body is the file's bytes, sent as they are. */
  function upload<O extends RawOperation>(
    operation: O,
    file: Blob | Uint8Array,
    contentType: string,
    ...params: ParamsOf<Routes[O]> extends undefined ? [] : [ParamsOf<Routes[O]>]
  ): Promise<ReplyOf<Routes[O]>> {
    return send(operation, params[0] as Record<string, string> | undefined, file as BodyInit, { 'content-type': contentType });
  }

  async function send<O extends Operation>(
    operation: O,
    params: Record<string, string> | undefined,
    body: BodyInit | undefined,
    extra: Record<string, string>,
  ): Promise<ReplyOf<Routes[O]>> {
    const r = routes[operation] as RouteDef;
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers, ...extra };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const res = await doFetch(base + pathOf(r, params), { method: r.method, headers, body });
    if (res.status !== r.status) {
      const text = await res.text();
      let body: ErrorBody;
      try {
        body = ErrorBody.parse(JSON.parse(text));
      } catch {
        body = { error: text.slice(0, 200) || res.statusText };
      }
      throw new ApiError(res.status, body);
    }
    if (!r.reply) return undefined as ReplyOf<Routes[O]>;
    const parsed = r.reply.safeParse(await res.json());
    if (!parsed.success) throw new ContractError(operation, parsed.error.issues);
    return parsed.data as ReplyOf<Routes[O]>;
  }

  return { call, upload, baseUrl: base, token: opts.token };
}

export type Client = ReturnType<typeof createClient>;
