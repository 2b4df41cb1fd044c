import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createSql, type Sql } from '../../../services/core/infra/db.js';
import type { RunnerClient } from '@demo-rooms/contract/runner';
import { createRunnerFleet } from '../../../services/data/runner-fleet.js';
import type { EngineReport, StubRunnerMessage } from '../../support/runner/stub-runner-process.js';
import { testRunnerEnv } from '../../support/runner/test-runner.js';
import { kill, spawnProcess, type PlatformProcess } from './platform-processes.js';
import type { ThrowawayServices } from './throwaway-services.js';

// A fleet of runner hosts, each the real runner over the stub engine in a process of its own
// (test/support/runner/stub-runner-process.ts), registered in runner_hosts under a fleet of the
// test's own; and the room's way to them (the fleet client: placement, then the session's host).

export interface StubHost {
  id: string;
  url: string;
  process: PlatformProcess;
  /** What its stub engine holds now, and how often it started each copy. */
  engine(): Promise<EngineReport>;
  /** The machine dies: SIGKILL, nothing finished or handed back. */
  kill(): Promise<void>;
}

export interface StubFleet {
  fleet: string;
  hosts: StubHost[];
  /** The room's runner client for this fleet. */
  client: RunnerClient;
  sql: Sql;
  /** Every host's engine, live hosts only (a killed host's engine died with it). */
  engines(): Promise<{ id: string; report: EngineReport }[]>;
  close(): Promise<void>;
}

export interface StubFleetOptions {
  hosts: number;
  hostCapacity: number;
  /** RUNNER_HOST_LOST_S, the same for the hosts and the client (the config's minimum is 10). */
  lostS: number;
  /** How long a stub start takes (ms). */
  startDelayMs: number;
  /** Each runner's Postgres pool (connections); runner/main.ts leaves postgres.js's 10. */
  pool?: number;
  /**
   * Postgres and Redis of the test's own (throwaway-services.ts, migrated as it starts them), for
   * a test that restarts them: the hosts, the fleet client and `sql` use these, never the shared
   * services. The object store stays the shared one (seedRooms stores the builds' bundle there).
   */
  services?: Pick<ThrowawayServices, 'env'>;
  /** RUNNER_RECONCILE_S of the hosts (30 by default): how soon a host sets engine and records right. */
  reconcileS?: number;
  /** RUNNER_USAGE_RECONCILE_S of the hosts (300 by default): how soon billed seconds are checked against the engine. */
  usageReconcileS?: number;
}

export async function startStubFleet(o: StubFleetOptions): Promise<StubFleet> {
  const fleet = `faults-${randomUUID().slice(0, 8)}`;
  const dir = mkdtempSync(path.join(tmpdir(), 'stub-fleet-'));
  const base = testRunnerEnv({
    RUNNER_FLEET: fleet,
    RUNNER_HOST_CAPACITY: String(o.hostCapacity),
    RUNNER_HOST_LOST_S: String(o.lostS),
    RUNNER_WARM_MAX: '0',
    RUNNER_HOST_GUARD: 'off',
    RUNNER_HEALTH_TIMEOUT_S: '60',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    STUB_START_DELAY_MS: String(o.startDelayMs),
    STUB_DB_POOL: String(o.pool ?? 10),
    ...(o.reconcileS ? { RUNNER_RECONCILE_S: String(o.reconcileS) } : {}),
    ...(o.usageReconcileS ? { RUNNER_USAGE_RECONCILE_S: String(o.usageReconcileS) } : {}),
    ...(o.services ? { DATABASE_URL: o.services.env.DATABASE_URL, REDIS_URL: o.services.env.REDIS_URL } : {}),
  });
  const sql = createSql(base.DATABASE_URL, { max: 10 });
  const hosts: StubHost[] = [];
  const close = async () => {
    await Promise.all(hosts.map((h) => stopHost(h.process)));
    await sql`delete from runner_hosts where fleet = ${fleet}`.catch(() => {});
    await sql.end({ timeout: 2 });
  };
  try {
    // Started together: each is its own process, as on its own machine.
    const started = await Promise.allSettled(
      Array.from({ length: o.hosts }, (_, i) => startHost({ ...base, RUNNER_ID: `${fleet}-${i}` }, dir, hosts)),
    );
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  } catch (err) {
    await close();
    throw err;
  }
  const { client } = createRunnerFleet(sql, { fleet, lostS: o.lostS, appSecret: base.APP_SECRET, fallbackUrl: 'http://127.0.0.1:9' });
  return {
    fleet,
    hosts,
    client,
    sql,
    async engines() {
      const live = hosts.filter((h) => h.process.child.exitCode === null && h.process.child.signalCode === null);
      return Promise.all(live.map(async (h) => ({ id: h.id, report: await h.engine() })));
    },
    close,
  };
}

async function startHost(env: Record<string, string>, dir: string, hosts: StubHost[]): Promise<void> {
  const p = spawnProcess(env.RUNNER_ID, 'test/support/runner/stub-runner-process.ts', env, dir, { ipc: true });
  const replies: ((r: EngineReport) => void)[] = [];
  p.child.on('message', (m: StubRunnerMessage) => {
    if ('engine' in m) replies.shift()?.(m.engine);
  });
  // Tracked before it is up, so a failed start is stopped with the rest.
  const host: StubHost = {
    id: env.RUNNER_ID,
    url: '',
    process: p,
    engine: () =>
      new Promise<EngineReport>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${env.RUNNER_ID} did not report its engine within 10 s`)), 10_000);
        replies.push((r) => {
          clearTimeout(timer);
          resolve(r);
        });
        p.child.send('engine', (err) => {
          if (!err) return;
          clearTimeout(timer);
          reject(err);
        });
      }),
    kill: () => kill(p),
  };
  hosts.push(host);
  host.url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${host.id} was not ready within 60 s:\n${p.tail()}`)), 60_000);
    p.child.on('message', (m: StubRunnerMessage) => {
      if (!('ready' in m)) return;
      clearTimeout(timer);
      resolve(m.ready.url);
    });
    void p.exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${host.id} exited before it was up:\n${p.tail()}`));
    });
  });
}

/** SIGTERM, then SIGKILL if it has not gone within a few seconds. */
async function stopHost(p: PlatformProcess): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGTERM');
  const gone = await Promise.race([p.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5_000))]);
  if (!gone) await kill(p);
}
