import Docker from 'dockerode';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import { z } from 'zod';
import type { Logger } from '../services/core/log.js';
import { opsPlugin } from '../services/core/http/ops.plugin.js';
import { logRequests, requestLogging } from '../services/core/http/request-log.js';
import { CallsBody, type CopyView, EnterBody, PrepareQuery, Uuid, WaitQuery } from '../services/contract/runner/runner-api.schema.js';
import { RUNNER_KEY_HEADER, keyMatches } from '../services/contract/runner/runner-key.js';
import { RunnerRefusal } from '../services/contract/runner/runner-refusal.js';
import type { RunnerService } from './runner-service.js';

// The runner's internal HTTP face (loopback, RUNNER_PORT), documented in docs/runner.md.
// Everything but /healthz and /readyz needs the runner key (runner-key.ts); the operator's
// /ops/metrics needs OPS_TOKEN as in every process.

export interface RunnerAppDeps {
  docker: Docker;
  log: Logger;
  /** Without a service the app answers health only (a runner still starting, or tests of the shell). */
  service?: RunnerService;
  key?: string;
  opsToken?: string;
}

const SessionParams = z.object({ sessionId: Uuid });
const BuildParams = z.object({ buildId: Uuid });

function bad(reply: FastifyReply, issues: z.ZodError) {
  return reply.status(400).send({ error: 'invalid', detail: issues.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ') });
}

export async function buildRunner(deps: RunnerAppDeps): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: deps.log as unknown as FastifyBaseLogger, ...requestLogging() });
  logRequests(app);
  await app.register(opsPlugin, { token: deps.opsToken });
  app.get('/healthz', async () => ({ ok: true, service: 'demo-rooms-runner' }));
  app.get('/readyz', async (_req, reply) => {
    try {
      await deps.docker.ping();
    } catch {
      return reply.status(503).send({ ok: false, engine: false });
    }
    // A runner that starts no copies for want of its host guard is not ready, and says why.
    const guard = deps.service?.ctx.hostGuard;
    if (guard && !guard.copies) return reply.status(503).send({ ok: false, engine: true, hostGuard: guard.refusal });
    return { ok: true, engine: true };
  });

  const service = deps.service;
  if (!service || !deps.key) return app;
  const key = deps.key;

  await app.register(async (api) => {
    api.addHook('onRequest', async (req, reply) => {
      if (!keyMatches(req.headers[RUNNER_KEY_HEADER], key)) return reply.status(401).send({ error: 'runner key required' });
    });
    api.setErrorHandler((err, req, reply) => {
      if (err instanceof RunnerRefusal) return reply.status(err.status).send({ error: err.message, ...(err.copy ? { copy: err.copy } : {}) });
      if ((err as { statusCode?: number }).statusCode === 400) return reply.status(400).send({ error: 'invalid', detail: (err as Error).message });
      req.log.error({ err }, 'runner request failed');
      return reply.status(500).send({ error: 'internal error' });
    });

    /** Enter: the session's copy (idempotent: the same session gets its same copy). `?wait=ms` waits for it to settle. */
    api.post('/sessions/:sessionId/copy', async (req, reply) => {
      const params = SessionParams.safeParse(req.params);
      const body = EnterBody.safeParse(req.body ?? {});
      const query = WaitQuery.safeParse(req.query);
      if (!params.success) return bad(reply, params.error);
      if (!body.success) return bad(reply, body.error);
      if (!query.success) return bad(reply, query.error);
      let view: CopyView = await service.enter(params.data.sessionId, body.data);
      if (query.data.wait && view.state === 'starting') view = await service.watch(params.data.sessionId, query.data.wait, view.version);
      return view;
    });

    /** The session's copy now, or (with `wait` and `seen`) once it has changed. */
    api.get('/sessions/:sessionId/copy', async (req, reply) => {
      const params = SessionParams.safeParse(req.params);
      const query = WaitQuery.safeParse(req.query);
      if (!params.success) return bad(reply, params.error);
      if (!query.success) return bad(reply, query.error);
      return service.watch(params.data.sessionId, query.data.wait ?? 0, query.data.seen);
    });

    /** Heartbeat of the room shell and the proxy: keeps the copy from idling; wakes a paused one. */
    api.post('/sessions/:sessionId/activity', async (req, reply) => {
      const params = SessionParams.safeParse(req.params);
      if (!params.success) return bad(reply, params.error);
      return service.activity(params.data.sessionId);
    });

    /** Controls and story calls, in order, on the session's own copy. */
    api.post('/sessions/:sessionId/calls', async (req, reply) => {
      const params = SessionParams.safeParse(req.params);
      const body = CallsBody.safeParse(req.body ?? {});
      if (!params.success) return bad(reply, params.error);
      if (!body.success) return bad(reply, body.error);
      return service.calls(params.data.sessionId, body.data.calls);
    });

    /** The viewer left: the copy goes (or the place in the queue). */
    api.delete('/sessions/:sessionId/copy', async (req, reply) => {
      const params = SessionParams.safeParse(req.params);
      if (!params.success) return bad(reply, params.error);
      return service.leave(params.data.sessionId);
    });

    /** A build went live: load its image and fill its warm pool ahead of viewers. */
    api.post('/builds/:buildId/prepare', async (req, reply) => {
      const params = BuildParams.safeParse(req.params);
      const query = PrepareQuery.safeParse(req.query);
      if (!params.success) return bad(reply, params.error);
      if (!query.success) return bad(reply, query.error);
      return service.prepare(params.data.buildId, query.data.wait ?? 0);
    });
    // The room long-polls and heartbeats all day: those requests are not news in the log.
  }, { logLevel: 'warn' });
  return app;
}

/** dockerode from DOCKER_HOST (`unix:///path` or `tcp://host:port`), else the default socket. */
export function dockerFrom(host?: string): Docker {
  if (!host) return new Docker();
  if (host.startsWith('unix://')) return new Docker({ socketPath: host.slice('unix://'.length) });
  const u = new URL(host.replace(/^tcp:/, 'http:'));
  return new Docker({ host: u.hostname, port: Number(u.port || 2375) });
}
