import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { type Issue, shellRoutes, type ShellOperation, type ShellRouteDef, type ShellRoutes } from '@demo-rooms/contract';
import type { RoomSessionRow } from '../../data/room-sessions.sql.js';
import { fromRoomPage, type ShellGuard } from './shell-guard.js';
import type { ViewerDeps } from './room-entry.routes.js';

// The shell's endpoints, registered from their rows in the contract (contract/routes/shell.routes.ts)
// as the api registers its own: the body checked against the row's schema before the handler
// runs, the reply against its reply schema before it leaves. Who may call is checked first, from
// the row's `guard`, so a caller that is not the session's own page learns nothing of the body.

/** What a handler is given: the parsed params and body, and the session its guard found. */
export interface ShellContext<R extends ShellRouteDef> {
  params: { sessionId: string };
  body: R['body'] extends z.ZodType ? z.output<R['body']> : undefined;
  /** The session the guard found; an `origin` row finds its own. */
  session: R['guard'] extends 'origin' ? null : RoomSessionRow;
  req: FastifyRequest;
  reply: FastifyReply;
}

type ReplyIn<R extends ShellRouteDef> = R['reply'] extends z.ZodType ? z.input<R['reply']> : undefined;
/** The reply body, or the reply itself when the handler sent a refusal. */
export type ShellHandler<R extends ShellRouteDef> = (ctx: ShellContext<R>) => Promise<ReplyIn<R> | FastifyReply | undefined>;
/** One handler for every row: the compiler says which is missing. */
export type ShellHandlers = { [O in ShellOperation]: ShellHandler<ShellRoutes[O]> };

class InvalidShellBody extends Error {
  constructor(readonly issues: Issue[]) {
    super('invalid');
  }
}

/** Each field that does not fit, by its dotted path and zod's words (as the shell has always been told). */
const validatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema }) =>
  (data) => {
    const result = schema.safeParse(data);
    if (result.success) return { value: result.data };
    return { error: new InvalidShellBody(result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }))) };
  };

/** sendBeacon posts text/plain; the shell's fetches post JSON. */
function parseBeacon(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}

export function registerShellRoutes(
  app: FastifyInstance,
  deps: ViewerDeps,
  guard: ShellGuard,
  handlers: ShellHandlers,
  bodyLimits: Partial<Record<ShellOperation, number>> = {},
) {
  /** The guard a row names: the request is refused (the reply sent) when it returns null. */
  const guardOf = (def: ShellRouteDef) => async (req: FastifyRequest, reply: FastifyReply) => {
    if (def.guard === 'origin') return fromRoomPage(deps.config, req, reply) ? null : undefined;
    const session = await guard(req, reply);
    if (session && def.guard === 'named' && !session.viewerName) {
      reply.status(403).send({ error: 'who are you first', reason: 'hello' });
      return undefined;
    }
    return session ?? undefined;
  };

  // In their own scope: the api (which serves the room in development) keeps its own compilers.
  app.register(async (scope) => {
    scope.setValidatorCompiler(validatorCompiler);
    scope.setSerializerCompiler(serializerCompiler);
    scope.setErrorHandler(async (err, req, reply) => {
      if (!(err instanceof InvalidShellBody)) throw err;
      const def = shellRoutes[req.routeOptions.config.shellOperation!] as ShellRouteDef;
      // A beat that does not fit is answered only to its own session (its guard left that to the handler).
      if (def.guard === 'origin' && !(await guard(req, reply))) return reply;
      return reply.status(400).send({ error: 'invalid', issues: def.invalid ? [def.invalid] : err.issues });
    });
    for (const [operation, def] of Object.entries(shellRoutes) as [ShellOperation, ShellRouteDef][]) {
      const handler = handlers[operation] as ShellHandler<ShellRouteDef>;
      const check = guardOf(def);
      scope.withTypeProvider<ZodTypeProvider>().route({
        method: def.method,
        url: def.path,
        config: { shellOperation: operation },
        ...(bodyLimits[operation] ? { bodyLimit: bodyLimits[operation] } : {}),
        schema: { params: def.params, ...(def.body ? { body: def.body } : {}), response: { [def.status]: def.reply } },
        onRequest: async (req, reply) => {
          const session = await check(req, reply);
          if (session === undefined) return reply;
          req.shellSession = session;
        },
        ...(def.beacon ? { preValidation: async (req: FastifyRequest) => void (req.body = parseBeacon(req.body)) } : {}),
        handler: async (req, reply) => {
          const ctx = { params: req.params as { sessionId: string }, body: req.body, session: req.shellSession!, req, reply };
          const out = await handler(ctx as never);
          return reply.sent ? reply : out;
        },
      });
    }
  });
}

declare module 'fastify' {
  interface FastifyRequest {
    shellSession?: RoomSessionRow | null;
  }
  interface FastifyContextConfig {
    shellOperation?: ShellOperation;
  }
}
