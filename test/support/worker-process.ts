import { loadConfig } from '../../services/core/infra/config.js';
import { createSql } from '../../services/core/infra/db.js';
import { createLogger } from '../../services/core/infra/log.js';
import { createStorage } from '../../services/core/infra/storage.js';
import { buildWorkers } from '../../workers/app.js';

// A worker in a process of its own, so a test can kill it with SIGKILL mid-job. Short locks let
// the next worker retake the dead one's job within seconds instead of half a minute.
const config = loadConfig();
const log = createLogger({ name: 'worker-process', level: 'warn' });
const sql = createSql(config.DATABASE_URL, { max: 2 });
buildWorkers(
  { config, sql, storage: createStorage(config), log },
  { queues: ['archive.unpack'], lockDuration: 1500, stalledInterval: 500 },
);
process.stdout.write('worker ready\n');
