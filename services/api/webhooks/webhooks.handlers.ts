import type { ProductEventKind, WebhookDelivery, WebhookEndpoint, WebhookPayload } from '@demo-rooms/contract';
import { roleCannot } from '../../core/rules/errors.js';
import {
  deleteEndpoint,
  deliveriesOf,
  endpointIn,
  endpointsOf,
  updateEndpoint,
  type AttemptRow,
  type DeliveryRow,
  type EndpointRow,
} from '../../data/webhooks.sql.js';
import type { HandlerGroup } from '../routing/handler.js';
import { createEndpoint, resendDelivery, rotateSecret, sendTestEvent, type EndpointWithSecret } from './webhooks.service.js';

/** Never the secret: only create and rotate answer it, once. */
const endpointView = (e: EndpointRow): WebhookEndpoint => ({
  id: e.id,
  url: e.url,
  description: e.description,
  kinds: e.kinds as ProductEventKind[],
  enabled: e.enabled,
  disabledReason: e.disabledReason,
  createdBy: e.createdBy,
  creatorLeft: e.creatorLeft,
  createdAt: e.createdAt.toISOString(),
});

const withSecret = ({ endpoint, secret }: EndpointWithSecret) => ({ endpoint: endpointView(endpoint), secret });

/** Whom a delivery's event was about, read from the payload it carries (the product event as sent). */
function aboutOf(payload: unknown): Pick<WebhookDelivery, 'linkId' | 'viewer'> {
  const event = (payload as Partial<WebhookPayload> | null)?.data;
  return { linkId: event?.linkId ?? null, viewer: event?.viewer ?? { name: null, company: null } };
}

/** Attempts come from json_agg: their times are text already, in Postgres's own format. */
const deliveryView = (d: DeliveryRow & { attempts: AttemptRow[] }): WebhookDelivery => ({
  id: d.id,
  endpointId: d.endpointId,
  eventId: d.eventId,
  kind: d.kind as ProductEventKind,
  status: d.status,
  series: d.series,
  createdAt: d.createdAt.toISOString(),
  ...aboutOf(d.payload),
  attempts: d.attempts.map((a) => ({ ...a, at: new Date(a.at).toISOString() })),
});

export const webhookHandlers = {
  createWebhookEndpoint: async ({ deps, auth, body, reply }) => {
    reply.header('cache-control', 'no-store');
    return withSecret(await createEndpoint(deps, auth, body));
  },

  listWebhookEndpoints: async ({ deps, auth }) => (await endpointsOf(deps.sql, auth.workspaceId)).map(endpointView),

  updateWebhookEndpoint: async ({ deps, auth, params, body }) => {
    if (auth.readOnly) throw roleCannot('updateWebhookEndpoint');
    return endpointView(await updateEndpoint(deps.sql, auth.workspaceId, params.endpointId, body));
  },

  deleteWebhookEndpoint: async ({ deps, auth, params }) => {
    if (auth.readOnly) throw roleCannot('deleteWebhookEndpoint');
    await deleteEndpoint(deps.sql, auth.workspaceId, params.endpointId);
    return { deleted: true as const };
  },

  rotateWebhookSecret: async ({ deps, auth, params, reply }) => {
    reply.header('cache-control', 'no-store');
    return withSecret(await rotateSecret(deps, auth, params.endpointId));
  },

  listWebhookDeliveries: async ({ deps, auth, params }) => {
    const endpoint = await endpointIn(deps.sql, auth.workspaceId, params.endpointId);
    return (await deliveriesOf(deps.sql, auth.workspaceId, endpoint.id)).map(deliveryView);
  },

  resendWebhookDelivery: async ({ deps, auth, params }) => deliveryView(await resendDelivery(deps, auth, params.deliveryId)),

  testWebhookEndpoint: async ({ deps, auth, params, body }) => deliveryView(await sendTestEvent(deps, auth, params.endpointId, body.kind)),
} satisfies HandlerGroup;
