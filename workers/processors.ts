import type { Job } from 'bullmq';
import type { QueueName } from '../services/core/queues.js';
import type { WorkerDeps } from './worker-deps.js';
import { accountPurge } from './account-purge/account-purge.job.js';
import { bundle } from './bundle/bundle.job.js';
import { eventDays } from './event-days/event-days.job.js';
import { sweep } from './sweep/sweep.job.js';
import { unpack } from './unpack/unpack.job.js';
import { usage } from './usage-rollup/usage.job.js';

export type Processor = (deps: WorkerDeps, job: Job) => Promise<unknown>;

/** One processor per queue of the job catalog; the workers refuse to start if one is missing. */
export const processors: Partial<Record<QueueName, Processor>> = {
  unpack,
  bundle,
  sweep,
  usage,
  'event-days': eventDays,
  'account-purge': accountPurge,
};
