import { type ProductEvent, webhookPayload } from '@demo-rooms/contract';
import type { Config } from '../../services/core/infra/config.js';
import type { Sql } from '../../services/core/infra/db.js';
import type { Queues } from '../../services/core/infra/queues.js';
import { queueWebhookDelivery } from '../../services/core/infra/webhook-jobs.js';
import { endpointsHearing, ensureDeliveries } from '../../services/data/webhooks.sql.js';

// The webhooks' consumer of the product events (issue 34), called by events.fanout with each
// batch of the outbox: for every event, one delivery per enabled endpoint of its workspace that
// hears its kind, and a webhook.deliver job for each. Idempotent: a batch handed over twice (a
// fan-out retried after a crash) makes no second delivery and queues no second series.

export interface WebhooksConsumerDeps {
  sql: Sql;
  queues: Queues;
  config: Pick<Config, 'WEBHOOKS_ATTEMPTS' | 'WEBHOOKS_BACKOFF_MS'>;
}

export const webhooksConsumer = {
  name: 'webhooks',
  async handle(deps: WebhooksConsumerDeps, events: ProductEvent[]): Promise<void> {
    for (const event of events) {
      const endpoints = await endpointsHearing(deps.sql, event.workspaceId, event.kind);
      const deliveries = await ensureDeliveries(deps.sql, {
        workspaceId: event.workspaceId,
        endpointIds: endpoints.map((e) => e.id),
        eventId: event.id,
        kind: event.kind,
        payload: webhookPayload(event),
      });
      for (const d of deliveries) {
        await queueWebhookDelivery(deps.queues, deps.config, { deliveryId: d.id, workspaceId: d.workspaceId, series: d.series });
      }
    }
  },
};
