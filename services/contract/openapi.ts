import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { SESSION_COOKIE } from './common.js';
import { ErrorBody, errorStatusText } from './errors.schema.js';
import type { RouteDef } from './route.js';
import { routes } from './routes/route-table.js';
import { webhookPayloadOf } from './resources/webhook.js';
import { ProductEventKind } from './resources/product-event.js';

/** The contract's version, as the OpenAPI document and the connector announce it. */
export const CONTRACT_VERSION = '1.0.0';

// The OpenAPI 3.1 document, generated from the route table. Served at GET /api/openapi.json.

const json = (schema: object) => ({ 'application/json': { schema } });

function operationOf(r: RouteDef): ZodOpenApiOperationObject {
  const refusals = new Set([400, 500, ...(r.open ? [] : [401]), ...(r.errors ?? [])]);
  if (!r.body && !r.raw) refusals.delete(400);
  const responses: Record<string, unknown> = {
    [String(r.status)]: r.reply
      ? { description: 'success', content: json(r.reply) }
      : r.download
        ? { description: 'success, a download', content: { [r.download]: { schema: { type: 'string' } } } }
        : { description: 'success, no body' },
  };
  for (const status of [...refusals].sort()) {
    responses[String(status)] = { description: errorStatusText[status] ?? 'refused', content: json(ErrorBody) };
  }
  return {
    operationId: r.operation,
    summary: r.summary,
    tags: [r.tag],
    security: r.open ? [] : [{ bearer: [] }, { cookie: [] }],
    requestParams: r.params || r.query ? { ...(r.params ? { path: r.params } : {}), ...(r.query ? { query: r.query } : {}) } : undefined,
    requestBody: r.body
      ? { required: true, content: json(r.body) }
      : r.raw
        ? {
            required: true,
            content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
          }
        : undefined,
    responses,
  } as ZodOpenApiOperationObject;
}

/**
 * The signed deliveries a workspace's endpoints receive (issue 34), one OpenAPI 3.1 `webhooks`
 * entry per product event kind: the body, and the Standard Webhooks headers that sign it.
 */
function webhooksOf(): ZodOpenApiPathsObject {
  const header = (name: string, description: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } });
  const entries: ZodOpenApiPathsObject = {};
  for (const kind of ProductEventKind.options) {
    entries[kind] = {
      post: {
        operationId: `webhook:${kind}`,
        summary: `Sent to each enabled endpoint that hears \`${kind}\`, signed per the Standard Webhooks spec; retried with exponential back-off for about a day until a 2xx.`,
        tags: ['webhooks'],
        parameters: [
          header('webhook-id', '`msg_<event id>`: the same on every attempt and re-send, so a receiver can drop repeats.'),
          header('webhook-timestamp', 'Seconds since the Unix epoch when this attempt was signed.'),
          header('webhook-signature', '`v1,<base64 HMAC-SHA256>` of `id.timestamp.body` under the endpoint secret.'),
        ],
        requestBody: { required: true, content: json(webhookPayloadOf(kind)) },
        responses: { '200': { description: 'Any 2xx: received. Anything else, a timeout or a redirect is retried.' } },
      },
    } as ZodOpenApiPathsObject[string];
  }
  return entries;
}

export function openApiDocument(serverUrl?: string) {
  const paths: ZodOpenApiPathsObject = {};
  for (const r of Object.values(routes) as RouteDef[]) {
    const path = r.path.replace(/:([A-Za-z]+)/g, '{$1}');
    paths[path] ??= {};
    (paths[path] as Record<string, unknown>)[r.method.toLowerCase()] = operationOf(r);
  }
  return createDocument({
    openapi: '3.1.0',
    info: { title: 'Demo Room Platform API', version: CONTRACT_VERSION, description: 'Generated from services/contract.' },
    servers: serverUrl ? [{ url: serverUrl }] : undefined,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A token from device login or `npm run ops -- token`.' },
        cookie: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE },
      },
    },
    paths,
    webhooks: webhooksOf(),
  });
}
