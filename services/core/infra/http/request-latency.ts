import type { FastifyReply, FastifyRequest } from 'fastify';
import { httpDuration } from '../metrics.js';

/**
 * onResponse hook feeding http_request_duration_seconds. The route label is the route's pattern
 * (`/api/projects/:projectId`), never the raw URL, so ids and keys neither explode the number of
 * series nor reach the metrics; a request that matched no route counts as `unmatched`.
 */
export async function observeLatency(req: FastifyRequest, reply: FastifyReply) {
  const route = req.routeOptions.url ?? 'unmatched';
  httpDuration.observe({ method: req.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
}
