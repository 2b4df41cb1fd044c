import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Operation, Routes, RouteDef } from '@demo-rooms/contract';
import type { Deps } from '../api-deps.js';
import type { Auth } from './request-auth.js';

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;
type In<T> = T extends z.ZodType ? z.input<T> : undefined;

/** What a handler is given: the parsed params and body, and who is calling (null on open routes). */
export interface HandlerContext<R extends RouteDef> {
  params: Out<R['params']>;
  body: Out<R['body']>;
  query: Out<R['query']>;
  auth: R['open'] extends true ? Auth | null : Auth;
  deps: Deps;
  req: FastifyRequest;
  reply: FastifyReply;
}

/** A handler returns the reply body, checked against the route's reply schema before it leaves. */
export type Handler<R extends RouteDef> = (ctx: HandlerContext<R>) => Promise<In<R['reply']> | Out<R['reply']>> | In<R['reply']>;

/** One area's handlers (auth, projects, …): some operations, each typed by its route row. */
export type HandlerGroup = { [O in Operation]?: Handler<Routes[O]> };

/**
 * Every operation's handler. Total, so a route-table row without a handler is a compile error
 * (as lokalise's buildRoutes), not a 503 found at run time.
 */
export type Handlers = { [O in Operation]: Handler<Routes[O]> };
