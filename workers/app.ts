import { DelayedError, Worker } from 'bullmq';
import { createRedis, queueNames, type QueueName } from '../services/core/infra/queues.js';
import type { WorkerDeps } from './worker-deps.js';
import { processorsFor } from './processors.js';
import { jobDuration } from '../services/core/infra/metrics.js';

export interface WorkersApp {
  workers: Worker[];
  close(): Promise<void>;
}

/** Starts one BullMQ worker per queue; refuses to start if a queue has no processor. */
export interface WorkerOptions {
  /** The queues to work (the whole job catalog unless a test wants a few). */
  queues?: readonly QueueName[];
  concurrency?: number;
  /** How long a job's lock lives without renewal (ms): a killed worker's job is retaken after it. */
  lockDuration?: number;
  /** How often stalled jobs are looked for (ms). */
  stalledInterval?: number;
}

/**
 * Jobs taken at once per queue where the default of 2 does not fit: a webhook delivery spends its
 * time waiting on someone else's server (up to 15 s), so many run side by side.
 */
const concurrencyOf: Partial<Record<QueueName, number>> = { 'webhook.deliver': 16 };

export function buildWorkers(deps: WorkerDeps, opts: WorkerOptions = {}): WorkersApp {
  const wanted = processorsFor(opts.queues ?? queueNames);
  const connection = createRedis(deps.config.REDIS_URL);
  const jobDeps: WorkerDeps = { ...deps, redis: connection };
  const workers = wanted.map(([name, process]) => {
    const w = new Worker(name, (job, token) => timed(name, () => process(jobDeps, job, token)), {
      connection,
      prefix: deps.config.QUEUE_PREFIX,
      concurrency: opts.concurrency ?? concurrencyOf[name] ?? 2,
      lockDuration: opts.lockDuration ?? 30_000,
      stalledInterval: opts.stalledInterval ?? 30_000,
      // A job whose worker died twice is still retried once more before it fails.
      maxStalledCount: 2,
    });
    w.on('failed', (job, err) => deps.log.warn({ queue: name, jobId: job?.id, err: err.message }, 'job failed'));
    w.on('error', (err) => deps.log.error({ queue: name, err }, 'worker error'));
    return w;
  });
  return {
    workers,
    async close() {
      // Finishes the jobs in hand; BullMQ hands back the rest when their lock lapses.
      await Promise.all(workers.map((w) => w.close()));
      connection.disconnect();
    },
  };
}

/**
 * queue_job_duration_seconds by outcome: `done`, `refused` (the job answered a refusal on the
 * merits, `{ok: false}`, which BullMQ counts as completed), `delayed` (it put itself back to wait)
 * or `failed` (it threw, and may be retried).
 */
async function timed<T>(queue: QueueName, run: () => Promise<T>): Promise<T> {
  const end = jobDuration.startTimer({ queue });
  try {
    const result = await run();
    const refused = typeof result === 'object' && result !== null && (result as { ok?: unknown }).ok === false;
    end({ outcome: refused ? 'refused' : 'done' });
    return result;
  } catch (err) {
    // `delayed`: the job put itself back to wait (webhook.deliver with no free workspace slot).
    end({ outcome: err instanceof DelayedError ? 'delayed' : 'failed' });
    throw err;
  }
}
