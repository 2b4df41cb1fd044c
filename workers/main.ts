import closeWithGrace from 'close-with-grace';
import { loadConfig } from '../services/core/infra/config.js';
import { createSql } from '../services/core/infra/db.js';
import { createLogger } from '../services/core/infra/log.js';
import { createQueues, queueNames, type QueueName } from '../services/core/infra/queues.js';
import { createStorage } from '../services/core/infra/storage.js';
import { buildOpsServer } from '../services/core/infra/http/ops-server.js';
import { platformChecks } from '../services/core/infra/http/readiness.js';
import { buildWorkers } from './app.js';
import { usageSchedule } from './usage-rollup/usage.job.js';
import { eventDaysSchedule } from './event-days-rollup/event-days.job.js';
import { fanoutSchedule } from './events-fanout/events-fanout.job.js';
import { digestSchedule } from './alerts-digest/digest.job.js';
import { SWEEP_EVERY_MS } from './leftovers-sweep/sweep.job.js';
import { createMailer } from '../services/core/infra/mailer.js';

const config = loadConfig();
const log = createLogger({ name: 'workers', level: config.LOG_LEVEL, pretty: config.NODE_ENV !== 'production' });
const sql = createSql(config.DATABASE_URL);
const storage = createStorage(config);
const queues = createQueues(config);
const mailer = createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, dataDir: config.DATA_DIR, log });

// The whole job catalog: buildWorkers refuses to start if a queue of it has no processor.
const workers = buildWorkers({ config, sql, storage, log, mailer, queues }, { queues: queueNames });
const ops = await buildOpsServer({
  log,
  service: 'demo-rooms-workers',
  token: config.OPS_TOKEN,
  queues,
  ready: platformChecks({ sql, storage, queues }),
});

// On SIGTERM: take no new jobs and finish those in hand within SHUTDOWN_SECONDS. A job still
// running then is handed back when the process exits: its lock lapses and another worker retakes
// it (every job is idempotent). The listener stays up until the jobs are done, so the metrics of
// a draining process can still be read. After an uncaught error (see services/api/api-process.ts) the
// wait is a few seconds at most, and the process exits 1 for its supervisor to start a fresh one.
closeWithGrace({ delay: config.SHUTDOWN_SECONDS * 1000 }, async ({ err, signal }) => {
  if (err) log.error({ err }, 'closing after an error');
  else log.info({ signal, deadlineSeconds: config.SHUTDOWN_SECONDS }, 'closing: finishing jobs in hand');
  const finishing = workers.close();
  if (err) await Promise.race([finishing, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  else await finishing;
  await ops.close();
  await queues.close();
  await sql.end({ timeout: err ? 1 : 5 });
});

/** Upserts a repeating job (idempotent across restarts and replicas), named as its queue. */
const repeat = (queue: QueueName, id: string, when: number | { pattern: string; tz: string }) =>
  queues.get(queue).upsertJobScheduler(id, typeof when === 'number' ? { every: when } : when, {
    name: queue,
    opts: { removeOnComplete: { count: 48 }, removeOnFail: { count: 48 } },
  });
// The sweep runs hourly.
await repeat('leftovers.sweep', 'hourly-sweep', SWEEP_EVERY_MS);
// The month's container usage is rolled up for billing on the same kind of schedule.
await repeat('usage.rollup', usageSchedule.id, usageSchedule.every);
// The room's events are summed per project per UTC day for analytics (yesterday, and any day missed).
await repeat('event-days.rollup', eventDaysSchedule.id, eventDaysSchedule.every);
// Product events go to their consumers (alerts, webhooks) every few seconds.
await repeat('events.fanout', fanoutSchedule.id, fanoutSchedule.every);
// Each digest person gets one mail of the day's alerts, at a fixed hour (UTC).
await repeat('alerts.digest', digestSchedule.id, { pattern: digestSchedule.pattern, tz: 'UTC' });
await ops.listen({ port: config.WORKERS_PORT, host: config.HOST });
log.info({ queues: queueNames, port: config.WORKERS_PORT }, 'workers started');
