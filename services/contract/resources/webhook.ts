import { z } from 'zod';
import { DateTime, Id } from '../common.js';
import { EventViewer, ProductEvent, ProductEventKind } from './product-event.js';

// Issue 34, signed webhooks (docs/decisions/webhooks.md): a workspace's HTTPS endpoints, each
// hearing some product event kinds, each delivery signed per the Standard Webhooks spec.

/** An https address of at most 2,000 characters; the server refuses private and loopback targets. */
export const WebhookUrl = z.string().trim().min(1).max(2000);
export const WebhookDescription = z.string().trim().max(200);
/** The kinds an endpoint hears: at least one, each once. */
export const WebhookKinds = z
  .array(ProductEventKind)
  .min(1)
  .max(ProductEventKind.options.length)
  .refine((kinds) => new Set(kinds).size === kinds.length, 'each kind once');

export const WebhookEndpoint = z.object({
  id: Id,
  url: z.string(),
  description: z.string(),
  kinds: z.array(ProductEventKind),
  enabled: z.boolean(),
  /** Why the platform switched the endpoint off (it kept failing); null otherwise. */
  disabledReason: z.string().nullable(),
  /** The person who added it; null for endpoints from before this was kept. */
  createdBy: Id.nullable(),
  /** Its maker is no longer a member of the workspace (removed, left or deleted): the owners should review it (security-4 L5). */
  creatorLeft: z.boolean(),
  createdAt: DateTime,
});
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

/** Create and rotate answer the signing secret (`whsec_…`), shown this once only. */
export const WebhookEndpointWithSecret = z.object({ endpoint: WebhookEndpoint, secret: z.string() });

export const WebhookAttempt = z.object({
  series: z.number().int(),
  attempt: z.number().int(),
  at: DateTime,
  durationMs: z.number().int(),
  /** The HTTP status answered; null when none came (refused, timed out, no connection). */
  statusCode: z.number().int().nullable(),
  ok: z.boolean(),
  error: z.string().nullable(),
  /** The first bytes of the answer's body, 1 KiB at most. */
  bodyExcerpt: z.string().nullable(),
});
export type WebhookAttempt = z.infer<typeof WebhookAttempt>;

export const WebhookDelivery = z.object({
  id: Id,
  endpointId: Id,
  /** The product event's id, or `test_…` for a test event: the `webhook-id` header is `msg_<eventId>`. */
  eventId: z.string(),
  kind: ProductEventKind,
  status: z.enum(['pending', 'succeeded', 'failed']),
  /** The series now running: each re-send starts one. */
  series: z.number().int(),
  createdAt: DateTime,
  /** The link the event was about (null for a room's public address), as its payload names it, so the log says whose event it was. */
  linkId: Id.nullable(),
  /** The viewer the event was about, as its payload names them. */
  viewer: EventViewer,
  /** Newest first. */
  attempts: z.array(WebhookAttempt),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

/** The body of every delivery (Standard Webhooks' recommended shape): `data` is the product event. */
export const WebhookPayload = z.object({ type: ProductEventKind, timestamp: DateTime, data: ProductEvent });
export type WebhookPayload = z.infer<typeof WebhookPayload>;

/** The body sent for `event`. */
export const webhookPayload = (event: ProductEvent): WebhookPayload => ({ type: event.kind, timestamp: event.occurredAt, data: event });

/** The body for one kind, for the OpenAPI document's `webhooks`. */
export function webhookPayloadOf(kind: ProductEventKind) {
  const event = ProductEvent.options.find((option) => option.shape.kind.value === kind);
  if (!event) throw new Error(`no product event of kind ${kind}`);
  return z.object({ type: z.literal(kind), timestamp: DateTime, data: event });
}
