import closeWithGrace from 'close-with-grace';
import { runnerClientFor } from '../data/runner-fleet.js';
import { loadConfig } from '../core/infra/config.js';
import { createSql } from '../core/infra/db.js';
import { listenForCrowds } from '../core/infra/http/listen.js';
import { createLogger } from '../core/infra/log.js';
import { createMailer } from '../core/infra/mailer.js';
import { createQueues } from '../core/infra/queues.js';
import { createStorage } from '../core/infra/storage.js';
import { buildApp, type Alongside } from './app.js';
import type { Deps } from './api-deps.js';

/**
 * The api process: config, connections, listen, and graceful shutdown. `alongside` serves
 * another app in the same process (services/platform: the room, for development).
 */
export async function runApiProcess(alongside?: (deps: Deps) => Alongside): Promise<void> {
  const config = loadConfig();
  const log = createLogger({ name: 'api', level: config.LOG_LEVEL, pretty: config.NODE_ENV !== 'production' });
  const sql = createSql(config.DATABASE_URL);
  const storage = createStorage(config);
  const queues = createQueues(config);
  const mailer = createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, dataDir: config.DATA_DIR, log });

  const runner = runnerClientFor(config, sql);

  const deps = { config, sql, storage, queues, mailer, log, runner };
  const app = await buildApp(deps, { alongside: alongside?.(deps) });

  // On SIGTERM: stop taking requests (the listener closes; a request arriving on a kept-alive
  // connection is answered 503) and finish those in flight, uploads included, within
  // SHUTDOWN_SECONDS. At the deadline the connections still open are cut, so an upload's PUT breaks
  // off and puts its upload back to `declared` for the builder to retry, and a moment later the
  // process ends. A second signal ends it at once.
  // After an uncaught error the process is in an unknown state (postgres.js 3.4.9 throws one when
  // Postgres goes away mid-write, porsager/postgres#1208): it drains for a few seconds at most and
  // exits 1, for its supervisor (compose, Kubernetes) to start a fresh one.
  closeWithGrace({ delay: config.SHUTDOWN_SECONDS * 1000 + 10_000 }, async ({ err, signal }) => {
    if (err) log.error({ err }, 'closing after an error');
    else log.info({ signal, deadlineSeconds: config.SHUTDOWN_SECONDS }, 'closing: finishing requests in flight');
    const drainMs = err ? Math.min(config.SHUTDOWN_SECONDS, 5) * 1000 : config.SHUTDOWN_SECONDS * 1000;
    let cut = false;
    const deadline = setTimeout(() => {
      cut = true;
      log.warn('shutdown deadline: cutting the requests still in flight');
      app.server.closeAllConnections();
    }, drainMs);
    await app.close();
    clearTimeout(deadline);
    // Handlers of cut requests are still putting their uploads back; give them the database a moment.
    if (cut && !err) await new Promise((resolve) => setTimeout(resolve, 2_000));
    await queues.close();
    await sql.end({ timeout: err ? 1 : 5 });
  });

  await listenForCrowds(app, config.PORT, config.HOST);
}
