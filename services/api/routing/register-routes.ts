import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { routes, type RouteDef } from '@demo-rooms/contract';
import type { Deps } from '../api-deps.js';
import type { Handlers } from './handler.js';
import { authenticate, type Auth } from './request-auth.js';
import { UNSUPPORTED_MEDIA_TYPE } from './error-handler.js';

/** Registers every row of the route table, each with its handler (`Handlers` is total). */
export function registerRoutes(app: FastifyInstance, deps: Deps, handlers: Handlers) {
  const rows = Object.entries(routes) as [string, RouteDef][];
  for (const [operation, def] of rows.filter(([, d]) => !d.raw)) registerRoute(app, deps, operation, def, handlers);
  // Upload PUTs take their body as a stream, whatever its type: the bytes go straight to the
  // object store, so no parser may read them and no body limit applies (the service checks sizes).
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null));
    for (const [operation, def] of rows.filter(([, d]) => d.raw)) registerRoute(scope, deps, operation, def, handlers);
  });
  app.setNotFoundHandler(notFoundReply);
}

/** Nothing at this address: the spec's body under /api, a plain Not found elsewhere. */
export function notFoundReply(req: FastifyRequest, reply: FastifyReply) {
  if (req.url.startsWith('/api/') || req.url === '/api') return reply.status(404).send({ error: 'not found' });
  return reply.status(404).type('text/plain').send('Not found');
}

/**
 * Bodies larger than the api's 8 MB: a page's 2,000,000 characters may arrive JSON-escaped
 * (`\u00e9`, six bytes a character), so addPage takes up to 12 MB and a little for the rest.
 */
const BODY_LIMITS: Partial<Record<string, number>> = { addPage: 13 * 1024 * 1024 };

function registerRoute(app: FastifyInstance, deps: Deps, operation: string, def: RouteDef, handlers: Handlers) {
  const handler = handlers[operation as keyof Handlers] as (ctx: unknown) => Promise<unknown>;
  app.withTypeProvider<ZodTypeProvider>().route({
    method: def.method,
    url: def.path,
    schema: schemaOf(def),
    ...(BODY_LIMITS[operation] ? { bodyLimit: BODY_LIMITS[operation] } : {}),
    config: { operation },
    // Sign-in is checked before the body is read: a caller without a session learns nothing
    // about the endpoint but "sign in first".
    onRequest: async (req) => {
      req.auth = def.open
        ? await authenticate(req, deps.sql, deps.config).catch(() => null)
        : await authenticate(req, deps.sql, deps.config);
    },
    // Fastify reads text/plain as a string for the room's beacons (sendBeacon posts text/plain);
    // an API row takes JSON only, so such a body is refused as any other type is, never read.
    preValidation: async (req, reply) => {
      if (typeof req.body === 'string') return reply.status(415).send(UNSUPPORTED_MEDIA_TYPE);
    },
    handler: async (req, reply) => {
      const out = await handler({ params: req.params, body: req.body, query: req.query, auth: req.auth, deps, req, reply });
      if (reply.sent) return reply;
      reply.status(def.status);
      return def.status === 204 ? reply.send() : out;
    },
  });
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: Auth | null;
  }
  interface FastifyContextConfig {
    operation?: string;
  }
}

/** Only the parts a row declares: fastify warns about every part given as undefined. */
function schemaOf(def: RouteDef) {
  return {
    ...(def.params ? { params: def.params } : {}),
    ...(def.query ? { querystring: def.query } : {}),
    ...(def.body && !def.raw ? { body: def.body } : {}),
    ...(def.reply ? { response: { [def.status]: def.reply } } : {}),
  };
}
