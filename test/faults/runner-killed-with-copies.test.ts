import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/core/config.js';
import { copyById } from '../../services/data/copies.sql.js';
import { createSql, type Sql } from '../../services/core/db.js';
import { createStorage } from '../../services/core/storage.js';
import { dockerFrom } from '../../runner/app.js';
import { createRunnerClient, type CopyView, type RunnerClient } from '../../services/contract/runner/runner-client.js';
import { LABEL } from '../../services/contract/runner/copy-labels.js';
import { imageTagOf } from '../../runner/images/image-store.js';
import { demoBundle } from '../support/runner/demo-bundle.js';
import { seedContainerBuild, seedWorkspace, type Seeded } from '../support/runner/seed.js';
import { eventually, startTestRunner, testRunnerEnv } from '../support/runner/test-runner.js';

// The runner as its own process, killed with SIGKILL while copies run, and started again with the
// same instance id: it adopts every copy by its labels, closes records whose container vanished
// meanwhile, removes containers no record knows, and counts nothing twice.

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

let env: Record<string, string>;
let buildId: string | null = null;
let sql: Sql;
let client: RunnerClient;
let child: ChildProcess | null = null;
const docker = () => dockerFrom(env.DOCKER_HOST);

async function startRunnerProcess() {
  child = spawn(process.execPath, ['--import', 'tsx', 'runner/main.ts'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await eventually(async () => (await fetch(`http://127.0.0.1:${env.RUNNER_PORT}/healthz`).catch(() => null))?.ok, 30_000, 100);
}

async function until(session: string, states: CopyView['state'][]) {
  return eventually(async () => {
    const v = await client.copy(session);
    return states.includes(v.state) ? v : null;
  }, 30_000);
}

beforeAll(async () => {
  env = testRunnerEnv({ RUNNER_PORT: String(await freePort()), LOG_LEVEL: 'warn', NODE_ENV: 'production', RUNNER_RECONCILE_S: '2' });
  sql = createSql(env.DATABASE_URL, { max: 2 });
  client = createRunnerClient({ baseUrl: `http://127.0.0.1:${env.RUNNER_PORT}`, appSecret: env.APP_SECRET });
});
afterAll(async () => {
  child?.kill('SIGKILL');
  // Whatever happened, nothing of this runner stays in the engine.
  const cleaner = await startTestRunner({}, { env: { ...env, RUNNER_PORT: '0' } });
  if (buildId) await cleaner.engine.removeImage(imageTagOf(buildId));
  await cleaner.close();
  await sql.end({ timeout: 2 });
});

describe('restart safety', () => {
  it('loses no copy and leaks no container when the runner is killed and started again', async () => {
    const storage = createStorage(loadConfig(env));
    const b: Seeded = await seedContainerBuild(sql, storage, await demoBundle(), { workspaceId: await seedWorkspace(sql) });
    buildId = b.buildId;
    const body = { workspaceId: b.workspaceId, projectId: b.projectId, buildId: b.buildId };
    await startRunnerProcess();
    const [s1, s2, s3] = [randomUUID(), randomUUID(), randomUUID()];
    for (const s of [s1, s2, s3]) await client.enter(s, body);
    const before = await Promise.all([s1, s2, s3].map((s) => until(s, ['running'])));
    const addressOf = async (copyId: string) => {
      const row = await copyById(sql, copyId);
      return { host: row?.host, port: row?.port };
    };
    const addresses = await Promise.all(before.map((v) => addressOf(v.copyId!)));

    child!.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    // While it is down: one copy's container vanishes, and a container appears that no record knows.
    const [gone] = await sql<{ containerId: string }[]>`select container_id from runner_copies where id = ${before[2].copyId}`;
    await docker().getContainer(gone.containerId).remove({ force: true });
    const stray = await docker().createContainer({
      Image: 'localhost/demo-node:24',
      Cmd: ['node', '-e', 'setInterval(() => {}, 1e6)'],
      Labels: { [LABEL.runner]: env.RUNNER_ID, [LABEL.copy]: randomUUID() },
      HostConfig: { NetworkMode: 'none' },
    });
    await stray.start();

    await startRunnerProcess();
    // The same copies, at the same addresses, still answering.
    for (const [i, s] of [s1, s2].entries()) {
      const v = await client.copy(s);
      expect(v).toMatchObject({ state: 'running', copyId: before[i].copyId });
      const at = await addressOf(v.copyId!);
      expect(at).toEqual(addresses[i]);
      expect((await fetch(`http://${at.host}:${at.port}/`)).status).toBe(200);
    }
    expect(await until(s3, ['gone'])).toMatchObject({ copyId: before[2].copyId, detail: 'vanished' });
    await eventually(async () => !(await docker().listContainers({ all: true })).some((c) => c.Id === stray.id));
    // Each copy started once and was counted once.
    const starts = await sql<{ copyId: string; n: number }[]>`
      select copy_id, count(*)::int as n from copy_events where workspace_id = ${b.workspaceId} and kind in ('start', 'ready') group by copy_id`;
    expect(starts.map((r) => r.n)).toEqual([2, 2, 2]);

    // The adopted copies are the runner's as before: leaving removes them.
    await client.leave(s1);
    await client.leave(s2);
    await eventually(
      async () =>
        (await docker().listContainers({ all: true, filters: JSON.stringify({ label: [`${LABEL.runner}=${env.RUNNER_ID}`] }) })).length ===
        0,
    );
    child!.kill('SIGTERM');
    await new Promise((resolve) => child!.once('exit', resolve));
    child = null;
    await sleep(10);
  });
});
