import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Config } from './config.js';
import type { Queues } from './queues.js';
import { sealingKey } from './sealed-secret.js';

// What the api (re-send, test event) and the workers (the events consumer) share about webhook
// deliveries (docs/decisions/webhooks.md): the signing secrets and the delivery job.

/**
 * A Standard Webhooks signing secret: `whsec_` and 32 random bytes in base64, the format the
 * spec's libraries take (24 to 64 bytes).
 */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** The key that seals endpoints' secrets, apart from every other use of APP_SECRET. */
export const webhookSealingKey = (appSecret: string): Buffer => sealingKey(appSecret, 'demo-rooms/webhook-secrets/v1');

/** One series of attempts at one delivery. */
export const WebhookDeliverJob = z.object({ deliveryId: z.uuid(), workspaceId: z.uuid(), series: z.number().int().min(1) });
export type WebhookDeliverJob = z.infer<typeof WebhookDeliverJob>;

/**
 * Queues a series: WEBHOOKS_ATTEMPTS attempts, each wait twice the one before from
 * WEBHOOKS_BACKOFF_MS (13 attempts from 20 s wait 20 s × (2^12 − 1) ≈ 22.75 h in all). The job id
 * names the delivery and series, so queuing the same series twice queues it once.
 */
export async function queueWebhookDelivery(
  queues: Queues,
  config: Pick<Config, 'WEBHOOKS_ATTEMPTS' | 'WEBHOOKS_BACKOFF_MS'>,
  job: WebhookDeliverJob,
  /** Fewer attempts than a series' (a test event is tried once: security-4 M3). */
  attempts = config.WEBHOOKS_ATTEMPTS,
): Promise<void> {
  await queues.add('webhook.deliver', job, {
    jobId: `wh-${job.deliveryId}-${job.series}`,
    attempts,
    backoff: { type: 'exponential', delay: config.WEBHOOKS_BACKOFF_MS },
    // Kept a day and a week: the attempt log in Postgres is the record, these only stop a repeat.
    removeOnComplete: { age: 24 * 3600 },
    removeOnFail: { age: 7 * 24 * 3600 },
  });
}
