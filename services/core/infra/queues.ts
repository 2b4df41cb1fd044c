import { Redis } from 'ioredis';
import { Queue, QueueEvents, type JobsOptions } from 'bullmq';
import type { Config } from './config.js';

// The job catalog: every queue the platform uses, named `<subject>.<verb>`; each queue carries one
// job, named as its queue (`Queues.add`). Workers refuse to start when a queue here has no
// processor (workers/processors.ts), so a job can never be enqueued where nobody will take it.
export const queueNames = [
  'archive.unpack',
  'bundle.check',
  'usage.rollup',
  'leftovers.sweep',
  'event-days.rollup',
  'account.purge',
  'webhook.deliver',
  'events.fanout',
  'alerts.digest',
] as const;
export type QueueName = (typeof queueNames)[number];

/** A Redis connection for BullMQ: workers need `maxRetriesPerRequest: null` (BullMQ's production guide). */
export function createRedis(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true });
}

export interface Queues {
  /** The shared Redis connection (BullMQ's, also for rate limits: core/infra/rate-limit.ts). */
  redis: Redis;
  get(name: QueueName): Queue;
  /** Enqueues the queue's job: its name is the queue's, so a queue never carries two kinds. */
  add(name: QueueName, data: unknown, opts?: JobsOptions): ReturnType<Queue['add']>;
  events(name: QueueName): QueueEvents;
  prefix: string;
  close(): Promise<void>;
}

export function createQueues(config: Pick<Config, 'REDIS_URL' | 'QUEUE_PREFIX'>): Queues {
  const connection = createRedis(config.REDIS_URL);
  const queues = new Map<QueueName, Queue>();
  const events = new Map<QueueName, QueueEvents>();
  // BullMQ leaves a connection it was handed open when it closes (it may be shared), so the ones
  // made here for QueueEvents are ended here: left open, they keep a closed process alive.
  const eventConnections: Redis[] = [];
  const prefix = config.QUEUE_PREFIX;
  return {
    prefix,
    redis: connection,
    get(name) {
      let q = queues.get(name);
      if (!q) queues.set(name, (q = new Queue(name, { connection, prefix })));
      return q;
    },
    add(name, data, opts) {
      return this.get(name).add(name, data, opts);
    },
    events(name) {
      let e = events.get(name);
      // QueueEvents blocks on its own connection, so it gets a fresh one.
      if (!e) {
        const own = createRedis(config.REDIS_URL);
        eventConnections.push(own);
        events.set(name, (e = new QueueEvents(name, { connection: own, prefix })));
      }
      return e;
    },
    async close() {
      await Promise.all([...events.values()].map((e) => e.close()));
      await Promise.all([...queues.values()].map((q) => q.close()));
      for (const c of eventConnections) c.disconnect();
      connection.disconnect();
    },
  };
}
