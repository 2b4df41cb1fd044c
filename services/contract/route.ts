import type { z } from 'zod';

// One row of the route table: everything the server, the OpenAPI document and the typed client
// need to know about an endpoint. The api registers its routes from these rows, so a route cannot
// drift from the contract.

export type Method = 'GET' | 'POST' | 'PUT';

export interface RouteDef {
  /** The operation's name in the spec, e.g. `createProject`. */
  operation: string;
  method: Method;
  /** Fastify-style path: `/api/projects/:projectId`. */
  path: string;
  params?: z.ZodObject;
  body?: z.ZodType;
  /** Query string, rarely used. */
  query?: z.ZodObject;
  /** The success reply's body; absent for 204. */
  reply?: z.ZodType;
  /** A reply that is not JSON but a download of this media type (`text/csv`), described as a string. */
  download?: string;
  status: 200 | 201 | 204;
  /** No sign-in needed. */
  open?: boolean;
  /** The body is raw bytes (upload PUTs), not JSON. */
  raw?: boolean;
  /** Refusal statuses this endpoint may answer, beyond 400/401/500 which any may. */
  errors?: number[];
  summary: string;
  tag: string;
}

export const route = <const R extends RouteDef>(r: R): R => r;

export type ParamsOf<R extends RouteDef> = R['params'] extends z.ZodObject ? z.input<R['params']> : undefined;
export type BodyOf<R extends RouteDef> = R['body'] extends z.ZodType ? z.input<R['body']> : undefined;
export type ReplyOf<R extends RouteDef> = R['reply'] extends z.ZodType ? z.output<R['reply']> : undefined;
