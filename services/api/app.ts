import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import cookie from '@fastify/cookie';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { InvalidRequest, validatorCompiler } from './routing/validator.js';
import type { Deps } from './api-deps.js';
import { handlers } from './handlers.js';
import type { Handlers } from './routing/handler.js';
import { errorHandler } from './routing/error-handler.js';
import { notFoundReply, registerRoutes } from './routing/register-routes.js';
import { registerWebApp } from './web-app/web-app.routes.js';
import { registerConnector } from './mcp/mcp.routes.js';
import { registerRegistryGate } from './registry/registry-gate.routes.js';
import { registerRegistryTokens } from './registry/registry-token.routes.js';
import { opsOptions, opsPlugin } from '../core/infra/http/ops.plugin.js';
import { closePagePool } from './community/page-check-pool.js';
import { trustProxyOption } from '../core/infra/trust-proxy.js';
import { headroomCheck, registerLoadShedding } from '../core/infra/http/load-shedding.js';
import { logRequests, requestLogging } from '../core/infra/http/request-log.js';
import { fitLoadBalancer } from '../core/infra/http/server-timeouts.js';

/**
 * Another app served by the same process and listener (the room, in development and tests; see
 * services/platform): its server factory sees every request first, and it adds its own routes.
 */
export interface Alongside {
  serverFactory?: (handler: (req: IncomingMessage, res: ServerResponse) => void) => Server;
  register(app: FastifyInstance): void;
}

/** Builds the api from its dependencies. Never listens: main.ts and the tests do that. */
export async function buildApp(deps: Deps, opts: { handlers?: Handlers; alongside?: Alongside } = {}): Promise<FastifyInstance> {
  const app = Fastify({
    ...(opts.alongside?.serverFactory ? { serverFactory: opts.alongside.serverFactory } : {}),
    loggerInstance: deps.log as unknown as FastifyBaseLogger,
    ...requestLogging(),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w-]{1,64}$/.test(given) ? given : randomUUID();
    },
    // Room content and uploads stream; JSON bodies are small (pages are the largest: register-routes.ts).
    bodyLimit: 8 * 1024 * 1024,
    // A path no route can hold (an id over 100 characters, broken percent-encoding) names nothing.
    frameworkErrors: (_err, req, reply) => notFoundReply(req, reply),
    trustProxy: trustProxyOption(deps.config.TRUST_PROXY),
  });
  fitLoadBalancer(app.server);
  // First, so that a process under pressure answers 503 before any other work (the room's routes, alongside, too).
  logRequests(app);
  await registerLoadShedding(app, deps.config);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler);
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });
  // The listing checks' worker threads end with the app.
  app.addHook('onClose', closePagePool);
  // An empty body sent as JSON (common from clients that always set the header) counts as none;
  // anything else must parse, or the request is 400 invalid.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, text, done) => {
    if (text === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text as string));
    } catch {
      done(new InvalidRequest([{ path: 'body', message: 'is not valid JSON' }]), undefined);
    }
  });
  await app.register(cookie);
  await app.register(opsPlugin, opsOptions(deps, { headroom: headroomCheck(app) }));
  registerRoutes(app, deps, opts.handlers ?? handlers);
  registerWebApp(app, deps);
  registerConnector(app, deps);
  registerRegistryTokens(app, deps);
  registerRegistryGate(app, deps);
  opts.alongside?.register(app);
  return app;
}
