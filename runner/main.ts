import closeWithGrace from 'close-with-grace';
import { loadConfig } from '../services/core/infra/config.js';
import { registryOf } from '../services/core/infra/registry/registry-pull.js';
import { createSql } from '../services/core/infra/db.js';
import { listenForCrowds } from '../services/core/infra/http/listen.js';
import { createLogger } from '../services/core/infra/log.js';
import { createStorage } from '../services/core/infra/storage.js';
import { buildRunner } from './app.js';
import { createEngine } from './engine/engine-factory.js';
import { runnerSettings } from './service/runner-context.js';
import { runnerKey } from '@demo-rooms/contract/runner';
import { createRunnerService } from './service/runner-service.js';

const config = loadConfig();
const log = createLogger({ name: 'runner', level: config.LOG_LEVEL, pretty: config.NODE_ENV !== 'production' });
const settings = runnerSettings(config, true);
const sql = createSql(config.DATABASE_URL);
const storage = createStorage(config);
const { engine, host } = createEngine(config, settings, log);
const service = createRunnerService({ sql, storage, engine, host, log, settings, registry: registryOf(config) });

// Reconcile before listening: copies a previous run left are adopted (or cleaned up) before the
// room can ask about them.
await service.start();
const app = await buildRunner({ engine, log, service, key: runnerKey(config.APP_SECRET), opsToken: config.OPS_TOKEN });

// Copies are left running on shutdown: the next runner adopts them by their labels.
closeWithGrace({ delay: config.SHUTDOWN_SECONDS * 1000 }, async ({ err }) => {
  if (err) log.error({ err }, 'closing after an error');
  await app.close();
  await service.close();
  await engine.close?.();
  await sql.end({ timeout: 5 });
});

await listenForCrowds(app, config.RUNNER_PORT, config.HOST);
log.info({ runnerId: settings.runnerId, port: config.RUNNER_PORT }, 'runner started');
