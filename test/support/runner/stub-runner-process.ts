import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { startHealthServer } from '../../../bench/admission-kit.js';
import { StubEngine } from '../../../bench/stub-engine.js';
import { buildRunner } from '../../../runner/app.js';
import { runnerSettings } from '../../../runner/service/runner-context.js';
import { createRunnerService } from '../../../runner/service/runner-service.js';
import { type CopySpec, runnerKey } from '@demo-rooms/contract/runner';
import { loadConfig } from '../../../services/core/infra/config.js';
import { createSql } from '../../../services/core/infra/db.js';
import { createLogger } from '../../../services/core/infra/log.js';
import { createStorage } from '../../../services/core/infra/storage.js';
import type { StartHooks } from '../../../runner/engine/copy-engine.js';

// One runner host in a process of its own, so a test can run several at once and SIGKILL one:
// the real runner (HTTP API, admission and queue, starter, probe, loops, beat in runner_hosts),
// as bench/admission-kit.ts startFleet builds it, over the stub engine (bench/stub-engine.ts),
// whose copies "answer" on a loopback health server of this process. Its environment is a test
// runner's (RUNNER_ID, RUNNER_FLEET, RUNNER_HOST_CAPACITY, RUNNER_HOST_LOST_S...), plus
// STUB_START_DELAY_MS (a start's length) and STUB_DB_POOL (its Postgres pool; runner/main.ts
// leaves postgres.js's 10). It talks to its parent over the IPC channel: `ready` with its id and
// address once registered, and `{ engine }` (what the stub engine holds, and how often each copy
// was started) whenever asked. Logs go to stderr. It exits when its parent goes away.

/** What the parent is told about the stub engine. */
export interface EngineReport {
  /** Copies the engine holds for this runner now. */
  holding: number;
  /** Starts asked for, and the copies started more than once (a copy id is started at most once). */
  starts: number;
  startedTwice: string[];
  /** The stub engine's own clock of every run it made (ISO times; null: not started, or still running). */
  clock: { copyId: string; startedAt: string | null; finishedAt: string | null }[];
}

export type StubRunnerMessage = { ready: { runnerId: string; url: string } } | { engine: EngineReport };

class CountingEngine extends StubEngine {
  readonly startsOf = new Map<string, number>();

  override async start(spec: CopySpec, hooks: StartHooks) {
    this.startsOf.set(spec.copyId, (this.startsOf.get(spec.copyId) ?? 0) + 1);
    return super.start(spec, hooks);
  }
}

const send = (m: StubRunnerMessage) => process.send?.(m);
if (!process.send) throw new Error('stub-runner-process runs as a child with an IPC channel');
process.on('disconnect', () => process.exit(0));

const health = await startHealthServer();
const config = loadConfig({ ...process.env, RUNNER_COPY_PORT: String(health.port) });
const log = createLogger({ name: 'stub-runner', level: config.LOG_LEVEL, destination: pino.destination(2) });
const settings = runnerSettings(config, true);
const engine = new CountingEngine({ startDelayMs: Number(process.env.STUB_START_DELAY_MS ?? 20), address: '127.0.0.1' });
const sql = createSql(config.DATABASE_URL, { max: Number(process.env.STUB_DB_POOL ?? 10) });
const service = createRunnerService({ sql, storage: createStorage(config), engine, host: engine, log, settings });
const app = await buildRunner({ engine, log, service, key: runnerKey(config.APP_SECRET) });
await app.listen({ port: 0, host: '127.0.0.1' });
// Advertised at the port it got, before its first beat (service.start registers it).
const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
settings.advertise = { apiUrl: url, copyOrigin: null };
await service.start();

process.on('message', (m: unknown) => {
  if (m !== 'engine') return;
  send({
    engine: {
      holding: engine.holding(settings.runnerId),
      starts: engine.starts,
      startedTwice: [...engine.startsOf].filter(([, n]) => n > 1).map(([id]) => id),
      clock: engine
        .clock()
        .map((r) => ({ copyId: r.copyId, startedAt: r.startedAt?.toISOString() ?? null, finishedAt: r.finishedAt?.toISOString() ?? null })),
    },
  });
});
process.on('SIGTERM', () => {
  // Copies are left as a stopped runner leaves them; the test reads the engine before this.
  void (async () => {
    await app.close();
    await service.close();
    await sql.end({ timeout: 2 });
    await health.close();
    process.exit(0);
  })();
});
log.info({ runnerId: settings.runnerId, url }, 'stub runner started');
send({ ready: { runnerId: settings.runnerId, url } });
