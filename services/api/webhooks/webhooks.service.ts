import { randomUUID } from 'node:crypto';
import { type ProductEvent, type ProductEventKind, webhookPayload } from '@demo-rooms/contract';
import { invalid, refused, roleCannot } from '../../core/rules/errors.js';
import { createRateLimiter, type RateRule } from '../../core/infra/rate-limit.js';
import { planLimit, planOf } from '../../core/rules/plans.js';
import { sealSecret } from '../../core/infra/sealed-secret.js';
import { webhookUrlProblem } from '../../core/infra/outbound/webhook-url.js';
import { newWebhookSecret, queueWebhookDelivery, webhookSealingKey } from '../../core/infra/webhook-jobs.js';
import { planNameOf } from '../../data/workspaces.sql.js';
import {
  countEndpoints,
  deliveriesOf,
  deliveryIn,
  endpointIn,
  ensureDeliveries,
  insertEndpoint,
  lockEndpointsOf,
  MAX_SERIES,
  setEndpointSecret,
  startSeries,
  type EndpointRow,
} from '../../data/webhooks.sql.js';
import type { Deps } from '../api-deps.js';
import type { Actor } from '../links/links.service.js';
import { tellOwnersOfNewEndpoint } from './endpoint-added.js';

// Issue 34: a workspace's webhook endpoints (docs/decisions/webhooks.md). Creating, changing
// and sending are for full connections; a read-only one may look. Adding an endpoint is for the
// workspace's owners, and tells them (security-4 L5): it sends the workspace's events outward.
// Test events and re-sends share a per-workspace rate, and a test event is tried once (M3).

/** Tests and re-sends a workspace may ask for an hour: enough to fix a receiver, not a loop. */
export const SENDS_PER_HOUR = 60;
const sendRate: RateRule = {
  name: 'webhook-sends',
  limit: SENDS_PER_HOUR,
  windowSeconds: 3600,
  text: `at most ${SENDS_PER_HOUR} test events and re-sends an hour`,
};

/** Counts one test or re-send of the workspace; the spec's 429 past the hour's allowance. */
async function takeSend(deps: Deps, workspaceId: string): Promise<void> {
  await createRateLimiter(deps.queues.redis, deps.queues.prefix).take(sendRate, workspaceId);
}

/** A test event's id: its delivery (and a re-send of it) is tried once, not a day-long series. */
const isTestEvent = (eventId: string) => eventId.startsWith('test_');

export interface CreateEndpointInput {
  url: string;
  description?: string;
  kinds: ProductEventKind[];
  enabled?: boolean;
}

export interface EndpointWithSecret {
  endpoint: EndpointRow;
  secret: string;
}

/** 400 naming the url when it cannot be an endpoint (https, public, no credentials). */
function checkUrl(deps: Deps, url: string): void {
  const problem = webhookUrlProblem(url, deps.config.WEBHOOKS_ALLOW_PRIVATE);
  if (problem) throw invalid([{ path: 'url', message: problem }]);
}

export async function createEndpoint(
  deps: Deps,
  actor: Actor & { role: 'owner' | 'member' },
  input: CreateEndpointInput,
): Promise<EndpointWithSecret> {
  if (actor.readOnly || actor.role !== 'owner') throw roleCannot('createWebhookEndpoint');
  checkUrl(deps, input.url);
  const plan = await planNameOf(deps.sql, actor.workspaceId);
  const id = randomUUID();
  const secret = newWebhookSecret();
  const endpoint = await deps.sql.begin(async (tx) => {
    // Serialise creations per workspace, so racing requests cannot both pass the plan's count.
    await lockEndpointsOf(tx, actor.workspaceId);
    if ((await countEndpoints(tx, actor.workspaceId)) >= planOf(plan).webhookEndpoints) throw planLimit('webhooks', plan);
    return insertEndpoint(tx, {
      id,
      workspaceId: actor.workspaceId,
      url: input.url,
      description: input.description ?? '',
      kinds: input.kinds,
      enabled: input.enabled ?? true,
      secretSealed: sealSecret(webhookSealingKey(deps.config.APP_SECRET), id, secret),
      createdBy: actor.personId,
    });
  });
  await tellOwnersOfNewEndpoint(deps, actor, endpoint);
  return { endpoint, secret };
}

export async function rotateSecret(deps: Deps, actor: Actor, endpointId: string): Promise<EndpointWithSecret> {
  if (actor.readOnly) throw roleCannot('rotateWebhookSecret');
  const current = await endpointIn(deps.sql, actor.workspaceId, endpointId);
  const secret = newWebhookSecret();
  const sealed = sealSecret(webhookSealingKey(deps.config.APP_SECRET), current.id, secret);
  return { endpoint: await setEndpointSecret(deps.sql, actor.workspaceId, current.id, sealed), secret };
}

/** A delivery as the log shows it. */
async function deliveryView(deps: Deps, workspaceId: string, endpointId: string, deliveryId: string) {
  const [row] = await deliveriesOf(deps.sql, workspaceId, endpointId, [deliveryId], 1);
  return row;
}

/** Re-sends a finished delivery: the same body (and webhook-id) in a new series of attempts. */
export async function resendDelivery(deps: Deps, actor: Actor, deliveryId: string) {
  if (actor.readOnly) throw roleCannot('resendWebhookDelivery');
  const delivery = await deliveryIn(deps.sql, actor.workspaceId, deliveryId);
  const endpoint = await endpointIn(deps.sql, actor.workspaceId, delivery.endpointId);
  if (!endpoint.enabled) throw refused(422, 'disabled', 'Switch the endpoint on before re-sending.');
  if (delivery.status === 'pending') throw refused(409, 'pending', 'This delivery is still being attempted.');
  if (delivery.series >= MAX_SERIES) throw refused(422, 'resent', `A delivery may be sent in at most ${MAX_SERIES} series.`);
  await takeSend(deps, actor.workspaceId);
  const started = await startSeries(deps.sql, actor.workspaceId, delivery.id);
  // Another request started one between the read and the update.
  if (!started) throw refused(409, 'pending', 'This delivery is still being attempted.');
  await queueWebhookDelivery(
    deps.queues,
    deps.config,
    { deliveryId: started.id, workspaceId: actor.workspaceId, series: started.series },
    isTestEvent(started.eventId) ? 1 : deps.config.WEBHOOKS_ATTEMPTS,
  );
  return deliveryView(deps, actor.workspaceId, endpoint.id, started.id);
}

/** A made-up event of `kind`, sent to this endpoint only, signed like a real one. */
export async function sendTestEvent(deps: Deps, actor: Actor, endpointId: string, kind: ProductEventKind | undefined) {
  if (actor.readOnly) throw roleCannot('testWebhookEndpoint');
  const endpoint = await endpointIn(deps.sql, actor.workspaceId, endpointId);
  if (!endpoint.enabled) throw refused(422, 'disabled', 'Switch the endpoint on before sending a test.');
  await takeSend(deps, actor.workspaceId);
  const event = testEventOf(kind ?? (endpoint.kinds[0] as ProductEventKind), actor.workspaceId);
  const [delivery] = await ensureDeliveries(deps.sql, {
    workspaceId: actor.workspaceId,
    endpointIds: [endpoint.id],
    eventId: event.id,
    kind: event.kind,
    payload: webhookPayload(event),
  });
  await queueWebhookDelivery(
    deps.queues,
    deps.config,
    { deliveryId: delivery.id, workspaceId: actor.workspaceId, series: delivery.series },
    1,
  );
  return deliveryView(deps, actor.workspaceId, endpoint.id, delivery.id);
}

/** The zero id: a test event names no real project, link, visit or comment. */
const none = '00000000-0000-0000-0000-000000000000';

function testEventOf(kind: ProductEventKind, workspaceId: string): ProductEvent {
  const base = {
    id: `test_${randomUUID()}`,
    workspaceId,
    projectId: none,
    linkId: none,
    occurredAt: new Date().toISOString(),
    viewer: { name: 'Test Viewer', company: 'Example Co' },
  };
  switch (kind) {
    case 'link.opened':
      return { ...base, kind, data: { visitId: none } };
    case 'visit.ended':
      return { ...base, kind, data: { visitId: none, seconds: 95, apps: [{ app: 'web', seconds: 95 }] } };
    case 'next_step.answered':
      return { ...base, kind, data: { answer: 'Book a call', detail: null } };
    case 'comment.left':
      return { ...base, kind, data: { commentId: none, body: 'A test comment.' } };
    case 'link.stage_changed':
      return { ...base, kind, data: { from: null, to: 'engaged' } };
    case 'usage.month_closed': {
      const month = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
      return {
        ...base,
        projectId: null,
        linkId: null,
        viewer: { name: null, company: null },
        kind,
        data: { month, copies: 3, containerSeconds: 5400, containerHours: 1.5, correctionSeconds: 0, viewerHours: 2.25, spendUsd: 0.015 },
      };
    }
  }
}
