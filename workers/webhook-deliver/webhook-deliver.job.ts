import { readFile } from 'node:fs/promises';
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { Webhook } from 'standardwebhooks';
import { postPinned } from '../../services/core/infra/outbound/pinned-post.js';
import { openSecret } from '../../services/core/infra/sealed-secret.js';
import { WebhookDeliverJob, webhookSealingKey } from '../../services/core/infra/webhook-jobs.js';
import { deliveryWithEndpoint, finishSeries, recordAttempt } from '../../services/data/webhooks.sql.js';
import type { WorkerDeps } from '../worker-deps.js';
import { workspaceSlots } from './workspace-slots.js';

// webhook.deliver: one attempt of a delivery's series per run (docs/decisions/webhooks.md).
// A failed attempt throws, and BullMQ retries it with the series' exponential back-off; the last
// one ends the series and counts towards switching the endpoint off. Every attempt is logged.
// An attempt first takes one of its workspace's slots (workspace-slots.ts); with none free the
// job is put back, delayed, without spending an attempt, so one tenant's endpoint that never
// answers cannot hold the slots every other tenant's deliveries need (security-4 M3).

/** How long a job with no free slot waits before asking again (ms), with jitter so they spread. */
const SLOT_RETRY_MS = 250;

/** The extra certificate authorities file, read once per process (tests' self-signed receiver). */
let extraCa: { path: string; pem: Promise<string> } | undefined;
function extraCaOf(path: string | undefined): Promise<string> | undefined {
  if (!path) return undefined;
  if (extraCa?.path !== path) extraCa = { path, pem: readFile(path, 'utf8') };
  return extraCa.pem;
}

export async function webhookDeliver(deps: WorkerDeps, job: Job, token?: string) {
  const parsed = WebhookDeliverJob.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`bad webhook.deliver payload: ${parsed.error.message}`);
  const { workspaceId } = parsed.data;
  const config = deps.config;
  if (!deps.redis) throw new Error('webhook.deliver needs the workers’ Redis connection (buildWorkers gives it)');
  // The lease outlasts any attempt: connect and answer are each bounded, and pinned-post aborts at their sum.
  const leaseMs = config.WEBHOOKS_CONNECT_TIMEOUT_MS + config.WEBHOOKS_RESPONSE_TIMEOUT_MS + 30_000;
  const slots = workspaceSlots(deps.redis, config.QUEUE_PREFIX, config.WEBHOOKS_WORKSPACE_CONCURRENCY, leaseMs);
  const holder = String(job.id);
  if (!(await slots.take(workspaceId, holder))) {
    await job.moveToDelayed(Date.now() + SLOT_RETRY_MS + Math.floor(Math.random() * SLOT_RETRY_MS), token);
    throw new DelayedError();
  }
  try {
    return await attemptOnce(deps, job, parsed.data);
  } finally {
    await slots.release(workspaceId, holder);
  }
}

async function attemptOnce(deps: WorkerDeps, job: Job, { deliveryId, workspaceId, series }: WebhookDeliverJob) {
  const d = await deliveryWithEndpoint(deps.sql, workspaceId, deliveryId);
  // Gone with its endpoint, or a series already ended or overtaken by a re-send: nothing to do.
  if (!d || d.series !== series || d.status !== 'pending') return { ok: false, reason: 'gone' };
  const end = (ok: boolean) =>
    finishSeries(deps.sql, {
      workspaceId,
      deliveryId,
      endpointId: d.endpointId,
      series,
      ok,
      disableAfter: deps.config.WEBHOOKS_DISABLE_AFTER,
    });
  if (!d.enabled) {
    await end(false);
    return { ok: false, reason: 'disabled' };
  }

  const config = deps.config;
  const secret = openSecret(webhookSealingKey(config.APP_SECRET), d.endpointId, d.secretSealed);
  const body = JSON.stringify(d.payload);
  // The same id on every attempt and re-send (the spec's idempotency key); a fresh time and signature each time.
  const messageId = `msg_${d.eventId}`;
  const at = new Date();
  const outcome = await postPinned(d.url, {
    headers: {
      'content-type': 'application/json',
      'user-agent': 'DemoRooms-Webhooks/1',
      'webhook-id': messageId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(messageId, at, body),
    },
    body,
    allowPrivate: config.WEBHOOKS_ALLOW_PRIVATE,
    connectTimeoutMs: config.WEBHOOKS_CONNECT_TIMEOUT_MS,
    responseTimeoutMs: config.WEBHOOKS_RESPONSE_TIMEOUT_MS,
    extraCa: await extraCaOf(config.WEBHOOKS_EXTRA_CA_FILE),
  });
  const attempt = job.attemptsMade + 1;
  await recordAttempt(deps.sql, { workspaceId, deliveryId, series, attempt, ...outcome });
  if (outcome.ok) {
    await end(true);
    return { ok: true, attempt };
  }
  if (attempt < (job.opts.attempts ?? 1)) throw new Error(`webhook delivery failed: ${outcome.error}`);
  const { disabled } = await end(false);
  if (disabled) deps.log.warn({ workspaceId, endpointId: d.endpointId }, 'webhook endpoint disabled after repeated failures');
  return { ok: false, reason: outcome.error, disabled };
}
