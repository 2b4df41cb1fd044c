import { randomUUID } from 'node:crypto';
import { registryOf } from '../../../services/core/infra/registry/registry-pull.js';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../../services/core/infra/config.js';
import { createSql, type Sql } from '../../../services/core/infra/db.js';
import { createLogger } from '../../../services/core/infra/log.js';
import { createStorage, type Storage } from '../../../services/core/infra/storage.js';
import { testEnv } from '../services.js';
import { waitFor } from '../wait-for.js';
import { buildRunner, dockerFrom } from '../../../runner/app.js';
import { createRunnerClient, type CopyView, type RunnerClient, LABEL, runnerKey } from '@demo-rooms/contract/runner';
import { DockerEngine } from '../../../runner/engine/docker-engine.js';
import { imageTagOf } from '../../../runner/images/image-store.js';
import { runnerSettings, type RunnerSettings } from '../../../runner/service/runner-context.js';
import { createRunnerService, type RunnerService } from '../../../runner/service/runner-service.js';
import { copyById, copyEventLog } from '../../../services/data/copies.sql.js';
import { beat } from '../../../services/data/runner-hosts.sql.js';
import { startTestDataplane, type TestDataplane } from './test-dataplane.js';

// A real runner for tests: the real database, object store and engine, its own instance id (so
// it adopts and removes only its own containers), its HTTP API on a loopback port, a client, and
// its own data plane (test-dataplane.ts), the only way a room reaches its copies, as under
// `npm start`. It registers in a fleet of its own (runner_hosts: its copy origin, which is how the
// room finds the data plane), so no other test's fleet ever places viewers on it or settles it.

export interface TestRunner {
  runnerId: string;
  env: Record<string, string>;
  settings: RunnerSettings;
  sql: Sql;
  storage: Storage;
  engine: DockerEngine;
  service: RunnerService;
  client: RunnerClient;
  baseUrl: string;
  /** Its data plane: the copy origin it registered (null when the test gave its own DATAPLANE_* settings). */
  dataplane: TestDataplane | null;
  /** Where a copy listens on the engine's network: the runner's own knowledge, never the room's. */
  addressOf(copyId: string): Promise<{ host: string; port: number }>;
  /** Waits until the session's copy runs, and answers where it listens (a runner test's way to the copy itself). */
  runningAt(sessionId: string, timeoutMs?: number): Promise<{ host: string; port: number }>;
  /** Waits until the session's copy is in one of `states` (polling the API), and returns it. */
  until(sessionId: string, states: CopyView['state'][], timeoutMs?: number): Promise<CopyView>;
  /** Containers in the engine carrying this runner's id. */
  containers(): Promise<{ id: string; status: string; labels: Record<string, string> }[]>;
  /** Stops loops and listener but leaves copies and the data plane (as a killed runner would). */
  stop(): Promise<void>;
  /** Removes everything this runner made, then stops. */
  close(): Promise<void>;
}

export function testRunnerEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    ...(testEnv() as unknown as Record<string, string>),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    RUNNER_ID: `t-${randomUUID().slice(0, 8)}`,
    RUNNER_WARM_MAX: '0',
    RUNNER_HEALTH_TIMEOUT_S: '10',
    ...overrides,
  };
}

export async function startTestRunner(
  overrides: Record<string, string> = {},
  opts: { env?: Record<string, string> } = {},
): Promise<TestRunner> {
  const given = opts.env ?? testRunnerEnv(overrides);
  const dataplane = given.DATAPLANE_ADMIN_SOCKET ? null : await startTestDataplane(given.COPY_TOKEN_KEY);
  const env = dataplane
    ? {
        ...given,
        DATAPLANE_ADMIN_SOCKET: dataplane.adminSocket,
        DATAPLANE_ROUTES_MAP: dataplane.routesMap,
        RUNNER_COPY_ORIGIN: dataplane.url,
        RUNNER_FLEET: given.RUNNER_FLEET ?? given.RUNNER_ID,
      }
    : given;
  const config = loadConfig(env);
  const settings = runnerSettings(config);
  const log = createLogger({ name: 'runner-test', level: config.LOG_LEVEL });
  const sql = createSql(config.DATABASE_URL, { max: 6 });
  const storage = createStorage(config);
  const docker = dockerFrom(config.DOCKER_HOST);
  const engine = new DockerEngine(docker, { concurrency: settings.engineConcurrency, writableDir: settings.writableDir });
  const service = createRunnerService({ sql, storage, engine, host: engine, log, settings, registry: registryOf(config) });
  await service.start();
  const app = await buildRunner({ engine, log, service, key: runnerKey(config.APP_SECRET) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const client = createRunnerClient({ baseUrl, appSecret: config.APP_SECRET });
  // The host's record once, as a runner process's first beat writes it: the room reads its copy
  // origin. No beats follow (an in-process runner joins no fleet's placement or settling).
  if (config.RUNNER_COPY_ORIGIN)
    await beat(sql, {
      id: settings.runnerId,
      fleet: settings.fleet,
      apiUrl: baseUrl,
      copyOrigin: config.RUNNER_COPY_ORIGIN,
      slots: settings.hostCapacity,
    });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await app.close();
    await service.close();
  };
  const runner: TestRunner = {
    runnerId: settings.runnerId,
    env,
    settings,
    sql,
    storage,
    engine,
    service,
    client,
    baseUrl,
    dataplane,
    async addressOf(copyId) {
      const row = await copyById(sql, copyId);
      if (!row?.host || !row.port) throw new Error(`copy ${copyId} has no address (${row?.state ?? 'no record'})`);
      return { host: row.host, port: row.port };
    },
    async runningAt(sessionId, timeoutMs) {
      return runner.addressOf((await runner.until(sessionId, ['running'], timeoutMs)).copyId!);
    },
    async until(sessionId, states, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      let v = await client.copy(sessionId);
      while (!states.includes(v.state)) {
        if (Date.now() > deadline) {
          // The copy's events say what the engine answered; the view gives only the failure's kind.
          const events = v.copyId ? await copyEventLog(sql, v.copyId).catch(() => []) : [];
          const said = events.map((e) => `${e.kind}${e.detail ? `: ${e.detail}` : ''}`).join('; ');
          throw new Error(
            `copy of ${sessionId} stayed ${v.state} (${v.detail ?? ''}), wanted ${states.join('/')}; its events: ${said || 'none'}`,
          );
        }
        v = await client.copy(sessionId, { seen: v.version, waitMs: Math.min(5_000, deadline - Date.now()) });
      }
      return v;
    },
    async containers() {
      const list = await docker.listContainers({ all: true, filters: JSON.stringify({ label: [`${LABEL.runner}=${settings.runnerId}`] }) });
      return list.map((c) => ({ id: c.Id, status: c.State, labels: c.Labels }));
    },
    stop,
    async close() {
      await service.drain().catch(() => {});
      // The tags of the builds this runner loaded (same bytes, one image: only the names go).
      for (const buildId of service.ctx.images.loaded()) await engine.removeImage(imageTagOf(buildId)).catch(() => {});
      await stop();
      // After the runner: a runner stopped and started again on the same env (a restart) keeps it.
      await dataplane?.stop();
      await sql.end({ timeout: 2 });
    },
  };
  return runner;
}

/** Polls `check` until it returns something truthy. */
export function eventually<T>(check: () => Promise<T | null | undefined | false>, timeoutMs = 15_000, everyMs = 100): Promise<T> {
  return waitFor('a condition of the runner test', check, timeoutMs, everyMs);
}
