import { z } from 'zod';
import {
  WebhookDelivery,
  WebhookDescription,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookKinds,
  WebhookUrl,
} from '../resources/webhook.js';
import { route } from '../route.js';

// Issue 34: the workspace's webhook endpoints (docs/decisions/webhooks.md). Every id is the
// active workspace's: another workspace's answers 404 like a missing one.

const EndpointParams = z.object({ endpointId: z.string() });
const DeliveryParams = z.object({ deliveryId: z.string() });

export const webhookRoutes = {
  createWebhookEndpoint: route({
    operation: 'createWebhookEndpoint',
    method: 'POST',
    path: '/api/webhooks',
    status: 201,
    tag: 'webhooks',
    summary:
      'An https endpoint for some event kinds; answers its signing secret (`whsec_…`) this once. Owners only (403 `permission` for a member), and every owner is told by a notice and a mail. 400 for an address that is not https or names a private, loopback or link-local host; 402 beyond the plan’s endpoints.',
    body: z.object({
      url: WebhookUrl,
      description: WebhookDescription.optional(),
      kinds: WebhookKinds,
      enabled: z.boolean().optional(),
    }),
    reply: WebhookEndpointWithSecret,
    errors: [402, 403],
  }),
  listWebhookEndpoints: route({
    operation: 'listWebhookEndpoints',
    method: 'GET',
    path: '/api/webhooks',
    status: 200,
    tag: 'webhooks',
    summary:
      "The workspace's endpoints, oldest first; never their secrets. `createdBy` and `creatorLeft` show who added each, and the ones whose maker is no longer a member, for the owners to review.",
    reply: z.array(WebhookEndpoint),
  }),
  updateWebhookEndpoint: route({
    operation: 'updateWebhookEndpoint',
    method: 'POST',
    path: '/api/webhooks/:endpointId/update',
    status: 200,
    tag: 'webhooks',
    summary: 'Changes the kinds, the description or whether it is enabled; enabling clears the reason the platform disabled it.',
    params: EndpointParams,
    body: z.object({ kinds: WebhookKinds.optional(), description: WebhookDescription.optional(), enabled: z.boolean().optional() }),
    reply: WebhookEndpoint,
    errors: [403, 404],
  }),
  deleteWebhookEndpoint: route({
    operation: 'deleteWebhookEndpoint',
    method: 'POST',
    path: '/api/webhooks/:endpointId/delete',
    status: 200,
    tag: 'webhooks',
    summary: 'Deletes the endpoint with its deliveries and their log; attempts already queued are dropped.',
    params: EndpointParams,
    reply: z.object({ deleted: z.literal(true) }),
    errors: [403, 404],
  }),
  rotateWebhookSecret: route({
    operation: 'rotateWebhookSecret',
    method: 'POST',
    path: '/api/webhooks/:endpointId/rotate',
    status: 200,
    tag: 'webhooks',
    summary: 'A new signing secret, answered this once; the old one signs nothing more from now on.',
    params: EndpointParams,
    reply: WebhookEndpointWithSecret,
    errors: [403, 404],
  }),
  listWebhookDeliveries: route({
    operation: 'listWebhookDeliveries',
    method: 'GET',
    path: '/api/webhooks/:endpointId/deliveries',
    status: 200,
    tag: 'webhooks',
    summary: "The endpoint's last 50 deliveries, newest first, each with its attempts (status, time, duration, body excerpt).",
    params: EndpointParams,
    reply: z.array(WebhookDelivery),
    errors: [404],
  }),
  resendWebhookDelivery: route({
    operation: 'resendWebhookDelivery',
    method: 'POST',
    path: '/api/webhook-deliveries/:deliveryId/resend',
    status: 200,
    tag: 'webhooks',
    summary:
      'Sends the same body again, in a new series of attempts (one attempt for a test event); 409 while a series is still running, 422 past 20 series or to a disabled endpoint; 429 past 60 tests and re-sends a workspace an hour.',
    params: DeliveryParams,
    reply: WebhookDelivery,
    errors: [403, 404, 409, 422, 429],
  }),
  testWebhookEndpoint: route({
    operation: 'testWebhookEndpoint',
    method: 'POST',
    path: '/api/webhooks/:endpointId/test',
    status: 200,
    tag: 'webhooks',
    summary:
      'Sends a made-up event of the kind given (the endpoint’s first kind when absent), signed like any other, in one attempt, and answers its delivery; 422 to a disabled endpoint; 429 past 60 tests and re-sends a workspace an hour.',
    params: EndpointParams,
    body: z.object({ kind: WebhookKinds.element.optional() }),
    reply: WebhookDelivery,
    errors: [403, 404, 422, 429],
  }),
};
