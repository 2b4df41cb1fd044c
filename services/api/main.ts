import closeWithGrace from 'close-with-grace';
import { loadConfig } from '../core/config.js';
import { createSql } from '../core/db.js';
import { createLogger } from '../core/log.js';
import { createMailer } from '../core/mailer.js';
import { createQueues } from '../core/queues.js';
import { createStorage } from '../core/storage.js';
import { buildApp } from './app.js';

const config = loadConfig();
const log = createLogger({ name: 'api', level: config.LOG_LEVEL, pretty: config.NODE_ENV !== 'production' });
const sql = createSql(config.DATABASE_URL);
const storage = createStorage(config);
const queues = createQueues(config);
const mailer = createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, dataDir: config.DATA_DIR, log });

const app = await buildApp({ config, sql, storage, queues, mailer, log });

// On SIGTERM: stop taking requests, finish those in flight (uploads included), then close
// connections. A second signal or the deadline ends the process anyway.
closeWithGrace({ delay: 30_000 }, async ({ err, signal }) => {
  if (err) log.error({ err }, 'closing after an error');
  else log.info({ signal }, 'closing');
  await app.close();
  await queues.close();
  await sql.end({ timeout: 5 });
});

await app.listen({ port: config.PORT, host: config.HOST });
