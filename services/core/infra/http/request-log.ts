import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';

// One log line per request: the route's pattern (`/api/projects/:projectId/links`), the path with
// only its secret parts redacted, the status and the time to answer. Fastify's own request lines
// are turned off (`requestLogging`): they carry `req.url`, which the logger redacts whole, so no
// slow route could be found from them.

/** Path parameters that are bearer secrets: room link and preview keys, invitation keys, viewer sessions. */
const secretParams = /^(key|token|code|sessionId|secret|grant)$/i;
/** Query parameters whose values are secrets: content grants (`g`), device and OAuth codes, states, tokens. */
const secretQuery = /^(g|code|state|token|key|secret|password|sig|signature|grant|user_code|device_code)$|token|secret|password/i;

export const REDACTED = '[redacted]';

/** The fastify options that go with logRequests: fastify's own request lines off. */
export const requestLogging = () => ({ logController: new LogController({ disableRequestLogging: true }) });

/**
 * The request's path as it may be logged: each secret path parameter and each secret query value
 * replaced by `[redacted]`. A request that matched no route logs no path at all (a mistyped room
 * link is still a key).
 */
export function loggablePath(req: Pick<FastifyRequest, 'url' | 'params'> & { routeOptions: { url?: string } }): string | null {
  const pattern = req.routeOptions.url;
  if (!pattern) return null;
  const [rawPath, query] = splitOnce(req.url, '?');
  const params = (req.params ?? {}) as Record<string, unknown>;
  const secrets = Object.keys(params).filter((name) => secretParams.test(name));
  let path = rawPath;
  if (secrets.length) {
    // Rebuilt from the pattern, so a secret is replaced where it stands whatever its encoding.
    path = pattern.replace(/:(\w+)/g, (_m, name: string) =>
      secretParams.test(name) ? REDACTED : encodeURIComponent(String(params[name] ?? '')),
    );
  }
  if (query === undefined) return path;
  const redactedQuery = query
    .split('&')
    .map((pair) => {
      const [name] = splitOnce(pair, '=');
      return secretQuery.test(safeDecode(name)) && pair.includes('=') ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
  return `${path}?${redactedQuery}`;
}

/** Adds the onResponse hook that writes the request line. */
export function logRequests(app: FastifyInstance): void {
  app.addHook('onResponse', async (req: FastifyRequest, reply: FastifyReply) => {
    req.log.info(
      {
        method: req.method,
        route: req.routeOptions.url ?? 'unmatched',
        path: loggablePath(req),
        status: reply.statusCode,
        // Milliseconds from the request's arrival to the end of its answer, to a tenth.
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
  });
}

function splitOnce(s: string, sep: string): [string, string | undefined] {
  const at = s.indexOf(sep);
  return at < 0 ? [s, undefined] : [s.slice(0, at), s.slice(at + 1)];
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
