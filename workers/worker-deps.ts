import type { Redis } from 'ioredis';
import type { Config } from '../services/core/infra/config.js';
import type { Sql } from '../services/core/infra/db.js';
import type { Logger } from '../services/core/infra/log.js';
import type { Mailer } from '../services/core/infra/mailer.js';
import type { Queues } from '../services/core/infra/queues.js';
import type { Storage } from '../services/core/infra/storage.js';

export interface WorkerDeps {
  config: Config;
  sql: Sql;
  storage: Storage;
  log: Logger;
  /** Alerts' mail (SMTP, or the outbox file locally); jobs that send none run without it (tests). */
  mailer?: Mailer;
  /** Jobs that queue others (events.fanout's webhooks consumer queues webhook.deliver); tests without them pass none. */
  queues?: Queues;
  /** The workers' own Redis connection (buildWorkers sets it): webhook.deliver's per-workspace slots. */
  redis?: Redis;
}
