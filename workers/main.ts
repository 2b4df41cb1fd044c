import closeWithGrace from 'close-with-grace';
import { loadConfig } from '../services/core/config.js';
import { createSql } from '../services/core/db.js';
import { createLogger } from '../services/core/log.js';
import { createQueues, type QueueName } from '../services/core/queues.js';
import { createStorage } from '../services/core/storage.js';
import { buildWorkers } from './app.js';
import { processors } from './processors.js';

const config = loadConfig();
const log = createLogger({ name: 'workers', level: config.LOG_LEVEL, pretty: config.NODE_ENV !== 'production' });
const sql = createSql(config.DATABASE_URL);
const storage = createStorage(config);
const queues = createQueues(config);

const ready = Object.keys(processors) as QueueName[];
const workers = buildWorkers({ config, sql, storage, log }, { queues: ready });
// The sweep runs hourly; upserting the scheduler is idempotent across restarts and replicas.
await queues.get('sweep').upsertJobScheduler('hourly-sweep', { every: 60 * 60 * 1000 }, { name: 'sweep' });
log.info({ queues: ready }, 'workers started');

closeWithGrace({ delay: 60_000 }, async ({ err, signal }) => {
  if (err) log.error({ err }, 'closing after an error');
  else log.info({ signal }, 'closing: finishing jobs in hand');
  await workers.close();
  await queues.close();
  await sql.end({ timeout: 5 });
});
