import type { Job } from 'bullmq';
import type { QueueName } from '../services/core/infra/queues.js';
import type { WorkerDeps } from './worker-deps.js';
import { accountPurge } from './account-purge/account-purge.job.js';
import { bundle } from './bundle-check/bundle.job.js';
import { alertsDigest } from './alerts-digest/digest.job.js';
import { eventDays } from './event-days-rollup/event-days.job.js';
import { eventsFanout } from './events-fanout/events-fanout.job.js';
import { sweep } from './leftovers-sweep/sweep.job.js';
import { unpack } from './archive-unpack/unpack.job.js';
import { usage } from './usage-rollup/usage.job.js';
import { webhookDeliver } from './webhook-deliver/webhook-deliver.job.js';

/** `token` is the job's lock, for a processor that moves its own job (webhook.deliver's delay). */
export type Processor = (deps: WorkerDeps, job: Job, token?: string) => Promise<unknown>;

/** One processor per queue of the job catalog: a queue without one does not compile. */
export const processors: Record<QueueName, Processor> = {
  'archive.unpack': unpack,
  'bundle.check': bundle,
  'leftovers.sweep': sweep,
  'usage.rollup': usage,
  'event-days.rollup': eventDays,
  'account.purge': accountPurge,
  'webhook.deliver': webhookDeliver,
  'events.fanout': eventsFanout,
  'alerts.digest': alertsDigest,
};

/**
 * The start-up check: each queue asked for, with its processor. A catalog naming a queue that no
 * processor takes (one read from somewhere the compiler does not see) refuses to start, naming
 * the queue, rather than leaving its jobs waiting forever.
 */
export function processorsFor(queues: readonly string[], known: Partial<Record<string, Processor>> = processors): [QueueName, Processor][] {
  const missing = queues.filter((q) => !known[q]);
  if (missing.length) throw new Error(`no processor for queue(s): ${missing.join(', ')}`);
  return queues.map((q) => [q as QueueName, known[q] as Processor]);
}
