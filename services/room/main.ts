import closeWithGrace from 'close-with-grace';
import { loadConfig } from '../core/infra/config.js';
import { createSql } from '../core/infra/db.js';
import { listenForCrowds } from '../core/infra/http/listen.js';
import { createLogger } from '../core/infra/log.js';
import { createStorage } from '../core/infra/storage.js';
import { buildRoomApp } from './app.js';

// The room process (production): viewers' side of the platform, scaled apart from the api.
const config = loadConfig();
const log = createLogger({ name: 'room', level: config.LOG_LEVEL, pretty: config.NODE_ENV !== 'production' });
const sql = createSql(config.DATABASE_URL);
const app = await buildRoomApp({ config, sql, storage: createStorage(config), log });

// On SIGTERM: stop taking viewers, let requests in flight finish, then close.
closeWithGrace({ delay: 20_000 }, async ({ err, signal }) => {
  if (err) log.error({ err }, 'closing after an error');
  else log.info({ signal }, 'closing');
  await app.close();
  await sql.end({ timeout: 5 });
});

await listenForCrowds(app, config.ROOM_PORT, config.HOST);
