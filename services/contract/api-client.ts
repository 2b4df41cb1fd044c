import type { z } from 'zod';
import { ErrorBody } from './errors.schema.js';
import type { BodyOf, ParamsOf, ReplyOf, RouteDef } from './route.js';
import { routes, type Operation, type Routes } from './routes/route-table.js';

// The typed client of the contract, used by the CLI, the connector and the tests. It checks every
// reply against the same schemas the server uses: a reply that does not fit is an error here too.

export class ApiError extends Error {
  constructor(readonly status: number, readonly body: ErrorBody) {
    super(`${status} ${body.error}${body.reason ? ` (${body.reason})` : ''}`);
    this.name = 'ApiError';
  }
}

export class ContractError extends Error {
  constructor(readonly operation: string, readonly issues: z.core.$ZodIssue[]) {
    super(`reply of ${operation} does not fit the contract: ${issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    this.name = 'ContractError';
  }
}

export interface ClientOptions {
  baseUrl: string;
  token?: string;
  /** Extra headers on every request (a cookie, a user agent). */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

type CallArgs<R extends RouteDef> = (ParamsOf<R> extends undefined ? { params?: undefined } : { params: ParamsOf<R> }) &
  (BodyOf<R> extends undefined ? { body?: undefined } : { body: BodyOf<R> }) & { headers?: Record<string, string> };

export function pathOf(r: RouteDef, params: Record<string, string> = {}): string {
  return r.path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

export function createClient(opts: ClientOptions) {
  const doFetch = opts.fetch ?? fetch;
  const base = opts.baseUrl.replace(/\/$/, '');

  async function call<O extends Operation>(operation: O, ...args: keyof CallArgs<Routes[O]> extends never ? [] : [CallArgs<Routes[O]>?]): Promise<ReplyOf<Routes[O]>> {
    const r = routes[operation] as RouteDef;
    const a = (args[0] ?? {}) as { params?: Record<string, string>; body?: unknown; headers?: Record<string, string> };
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers, ...a.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (a.body !== undefined) headers['content-type'] = 'application/json';
    const res = await doFetch(base + pathOf(r, a.params), {
      method: r.method,
      headers,
      body: a.body === undefined ? undefined : JSON.stringify(a.body),
    });
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

  return { call, baseUrl: base, token: opts.token };
}

export type Client = ReturnType<typeof createClient>;
