import type { RunnerClient } from '@demo-rooms/contract/runner';
import type { Config } from '../core/infra/config.js';
import type { Sql } from '../core/infra/db.js';
import type { Logger } from '../core/infra/log.js';
import type { Queues } from '../core/infra/queues.js';
import type { Storage } from '../core/infra/storage.js';
import type { Mailer } from '../core/infra/mailer.js';

/** Everything the api's services need, passed in so that workers, the CLI and tests reuse them. */
export interface Deps {
  config: Config;
  sql: Sql;
  storage: Storage;
  queues: Queues;
  mailer: Mailer;
  log: Logger;
  /** The runner's internal API (makeLive's prepare), one client per process; the room in the same process shares it. */
  runner: RunnerClient;
}
