import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { unavailable } from '../../rules/errors.js';
import { shedRequests } from '../metrics.js';
import type { ReadinessChecks } from './readiness.js';

// Load shedding for every fastify app that faces the public (api, room, content origins): while
// the event loop is held up or memory is near the process's end, new requests are answered at
// once with 503 `unavailable` and Retry-After, instead of queueing behind the work that holds the
// loop (every tenant waits then) or pushing the process into the OOM killer (every request in
// flight dies then). @fastify/under-pressure samples once a second; a busy second sheds until
// the next sample shows room again.

/** Seconds a shed client is told to wait: a couple of samples, so a retry meets a fresh one. */
export const SHED_RETRY_AFTER_SECONDS = 2;

const MiB = 1024 * 1024;

type LoadSettings = Pick<Config, 'LOAD_MAX_EVENT_LOOP_DELAY_MS' | 'LOAD_MAX_HEAP_MB' | 'LOAD_MAX_RSS_MB'>;

/** The limits in bytes and milliseconds, with the defaults the settings document; 0 is off. */
export function loadLimits(c: LoadSettings) {
  // A container's memory limit (cgroup); Node reports none as 0 or as something beyond the host's memory.
  const constrained = process.constrainedMemory?.() ?? 0;
  const containerLimit = constrained > 0 && constrained < totalmem() ? constrained : 0;
  return {
    maxEventLoopDelay: c.LOAD_MAX_EVENT_LOOP_DELAY_MS,
    maxHeapUsedBytes: c.LOAD_MAX_HEAP_MB !== undefined ? c.LOAD_MAX_HEAP_MB * MiB : Math.floor(getHeapStatistics().heap_size_limit * 0.9),
    maxRssBytes: c.LOAD_MAX_RSS_MB !== undefined ? c.LOAD_MAX_RSS_MB * MiB : Math.floor((containerLimit * 7) / 8),
  };
}

/**
 * Registers shedding on `app` (and every route registered in it after). `/readyz` is never shed:
 * it answers its own 503 with `headroom: false` (see headroomCheck), so a load balancer stops
 * sending here while the probe's body still says which check failed. `/healthz` is shed like any
 * route: its 503 is how liveness sees a process stuck under pressure (docs/decisions/operations.md).
 */
export async function registerLoadShedding(app: FastifyInstance, settings: LoadSettings, opts: { exempt?: string[] } = {}) {
  const exempt = new Set(opts.exempt ?? ['/readyz']);
  await app.register(underPressure, {
    ...loadLimits(settings),
    pressureHandler: (req, reply, type) => {
      if (req.routeOptions.url && exempt.has(req.routeOptions.url)) return; // carries on
      shedRequests.inc({ cause: type });
      reply
        .status(503)
        .header('retry-after', String(SHED_RETRY_AFTER_SECONDS))
        .header('cache-control', 'no-store')
        .header('x-content-type-options', 'nosniff');
      // A body returned is sent by the plugin, which then ends the request there. (Sending it
      // here instead would let the route's handler run after the reply, and change its status.)
      // The plugin's types know only the undefined return, which lets the request through.
      return unavailable('the server is busy; try again in a moment').body() as unknown as void;
    },
  });
}

/** The readiness check for an app with shedding: fails while the app sheds. */
export function headroomCheck(app: FastifyInstance): ReadinessChecks[string] {
  return async () => {
    if (app.isUnderPressure()) throw new Error('under pressure');
  };
}
