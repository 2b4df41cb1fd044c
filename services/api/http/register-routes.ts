import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { routes } from '../../contract/routes/index.js';
import type { RouteDef } from '../../contract/route.js';
import { Refusal, unavailable } from '../../core/errors.js';
import type { Deps } from '../deps.js';
import type { Handlers } from './handler.js';
import { authenticate } from './request-auth.js';

/**
 * Registers every row of the route table. Sign-in is checked before the body, so that a caller
 * without a session learns nothing about the endpoint but "sign in first". A row with no handler
 * yet answers 503 unavailable (the feature is not switched on) rather than being absent.
 */
export function registerRoutes(app: FastifyInstance, deps: Deps, handlers: Handlers) {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  for (const [operation, def] of Object.entries(routes) as [keyof typeof routes, RouteDef][]) {
    const handler = handlers[operation] as ((ctx: unknown) => Promise<unknown>) | undefined;
    typed.route({
      method: def.method,
      url: def.path,
      schema: {
        params: def.params,
        querystring: def.query,
        body: def.raw ? undefined : def.body,
        response: def.reply ? { [def.status]: def.reply } : undefined,
      },
      config: { operation, raw: def.raw ?? false },
      onRequest: async (req) => {
        req.auth = def.open ? await authenticate(req, deps.sql, deps.config).catch(() => null) : await authenticate(req, deps.sql, deps.config);
      },
      handler: async (req, reply) => {
        if (!handler) throw unavailable(`${operation} is not switched on yet`);
        const out = await handler({ params: req.params, body: req.body, query: req.query, auth: req.auth, deps, req, reply });
        if (reply.sent) return reply;
        reply.status(def.status);
        return def.status === 204 ? reply.send() : out;
      },
    });
  }
  app.setNotFoundHandler((req, reply) => {
    if (req.url.startsWith('/api/') || req.url === '/api') return reply.status(404).send({ error: 'not found' });
    return reply.status(404).type('text/plain').send('Not found');
  });
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: import('./request-auth.js').Auth | null;
  }
  interface FastifyContextConfig {
    operation?: string;
    raw?: boolean;
  }
}

export { Refusal };
