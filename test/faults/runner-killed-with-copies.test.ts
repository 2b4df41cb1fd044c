import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/core/infra/config.js';
import { copyById } from '../../services/data/copies.sql.js';
import { createSql, type Sql } from '../../services/core/infra/db.js';
import { createStorage } from '../../services/core/infra/storage.js';
import { dockerFrom } from '../../runner/app.js';
import { createRunnerClient, type CopyView, type RunnerClient, LABEL, reconcileUsageAt } from '@demo-rooms/contract/runner';
import { imageTagOf } from '../../runner/images/image-store.js';
import { demoBundle } from '../support/runner/demo-bundle.js';
import { seedContainerBuild, seedWorkspace, type Seeded } from '../support/runner/seed.js';
import { eventually, startTestRunner, testRunnerEnv } from '../support/runner/test-runner.js';
import { describeUsage, usageAgainstEngine, usageProblems, type EngineRecord } from '../support/usage-against-engine.js';
import { createEngine } from '../../runner/engine/engine-factory.js';
import { runnerSettings } from '../../runner/service/runner-context.js';
import { createLogger } from '../../services/core/infra/log.js';
import { insertCopy } from '../../services/data/copies.sql.js';

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
const buildIds: string[] = [];
let sql: Sql;
let client: RunnerClient;
let child: ChildProcess | null = null;
/** Every runner process started, so none outlives a failed test. */
const children: ChildProcess[] = [];
const docker = () => dockerFrom(env.DOCKER_HOST);

/**
 * A fleet of the runner's own, as in-process test runners have (test-runner.ts): in the default
 * fleet, another test's runner running at the same time would take this one for lost while a
 * cold restart takes tens of seconds on a loaded machine, and end its copies (a failed CI run).
 */
const ownFleet = (e: Record<string, string>) => ({ ...e, RUNNER_FLEET: e.RUNNER_ID });

async function startRunnerProcess(e = env) {
  child = spawn(process.execPath, ['--import', 'tsx', 'runner/main.ts'], {
    env: { ...process.env, ...e },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  // Generous: on a shared machine a cold `node --import tsx` start can take tens of seconds.
  await eventually(async () => (await fetch(`http://127.0.0.1:${e.RUNNER_PORT}/healthz`).catch(() => null))?.ok, 90_000, 100);
}

/** States a copy does not leave: waiting on for another is a failure to say at once. */
const SETTLED: CopyView['state'][] = ['failed', 'gone'];

/**
 * The session's copy once it is in one of `states`. Generous (150 s): the first starts load the
 * demo's image into an engine the whole fault lane shares. A copy settled elsewhere fails at once,
 * and a wait that runs out says what the copy was last seen as.
 */
async function until(session: string, states: CopyView['state'][]): Promise<CopyView> {
  let last: CopyView | null = null;
  const seen = await eventually(async () => {
    last = await client.copy(session);
    return states.includes(last.state) || SETTLED.includes(last.state) ? last : null;
  }, 150_000).catch((err: Error) => {
    throw new Error(`waiting for ${states.join(' or ')}: ${err.message}; the copy was last seen as ${JSON.stringify(last)}`);
  });
  if (!states.includes(seen.state)) throw new Error(`waiting for ${states.join(' or ')}, the copy settled as ${JSON.stringify(seen)}`);
  return seen;
}

beforeAll(async () => {
  env = ownFleet(
    testRunnerEnv({ RUNNER_PORT: String(await freePort()), LOG_LEVEL: 'warn', NODE_ENV: 'production', RUNNER_RECONCILE_S: '2' }),
  );
  sql = createSql(env.DATABASE_URL, { max: 2 });
  client = createRunnerClient({ baseUrl: `http://127.0.0.1:${env.RUNNER_PORT}`, appSecret: env.APP_SECRET });
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  // Whatever happened, nothing of these runners stays in the engine.
  for (const e of [env, env2].filter(Boolean)) {
    const cleaner = await startTestRunner({}, { env: { ...e, RUNNER_PORT: '0' } });
    for (const id of buildIds) await cleaner.engine.removeImage(imageTagOf(id)).catch(() => {});
    await cleaner.close();
  }
  await sql.end({ timeout: 2 });
});

async function killRunner() {
  child!.kill('SIGKILL');
  await new Promise((resolve) => child!.once('exit', resolve));
}

describe('restart safety', () => {
  it('loses no copy and leaks no container when the runner is killed and started again', { timeout: 300_000 }, async () => {
    const storage = createStorage(loadConfig(env));
    const b: Seeded = await seedContainerBuild(sql, storage, await demoBundle(), { workspaceId: await seedWorkspace(sql) });
    buildIds.push(b.buildId);
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
    // The engine's record of it, read before it forgets: it ran until this removal.
    const goneStarted = new Date((await docker().getContainer(gone.containerId).inspect()).State.StartedAt);
    await docker().getContainer(gone.containerId).remove({ force: true });
    const goneFinished = new Date();
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

    // Usage against the engine (issue 46): the usage reconciliation has run; the adopted copies
    // are billed their engine run within 1 s, nothing twice, no engine second unbilled. The copy
    // whose container was removed by hand while the runner was away ran (it answered its health
    // path): it is not voided as one the engine never ran; its stop is written when the runner
    // came back and saw it gone, so it is billed up to the runner's downtime beyond the engine's
    // run, which the reconciliation reports (a difference the operator judges).
    const reconciled = await reconcileUsageAt(
      { baseUrl: `http://127.0.0.1:${env.RUNNER_PORT}`, appSecret: env.APP_SECRET },
      new Date(Date.now() - 3_600_000),
    );
    expect(reconciled.differences.filter((d) => d.kind === 'never-ran')).toEqual([]);
    const engine: EngineRecord[] = [{ copyId: before[2].copyId!, startedAt: goneStarted, finishedAt: goneFinished }];
    const usage = await usageAgainstEngine(sql, { workspaceIds: [b.workspaceId], engine });
    console.info(describeUsage(usage).join('\n'));
    const handRemoved = usage.copies.find((c) => c.copyId === before[2].copyId)!;
    expect(handRemoved.billedSeconds).toBeGreaterThan(0);
    expect(handRemoved.unbilledSeconds).toBeLessThan(1);
    expect(usageProblems({ ...usage, over: usage.over.filter((c) => c !== handRemoved) })).toEqual([]);

    child!.kill('SIGTERM');
    await new Promise((resolve) => child!.once('exit', resolve));
    child = null;
    await sleep(10);
  });
});

let env2: Record<string, string>;

describe('usage through kills mid-start and mid-run, and pauses (issue 46)', () => {
  it('bills each copy its engine run within 1 s, once, with no engine second unbilled', { timeout: 400_000 }, async () => {
    env2 = ownFleet(
      testRunnerEnv({
        RUNNER_PORT: String(await freePort()),
        LOG_LEVEL: 'warn',
        NODE_ENV: 'production',
        RUNNER_RECONCILE_S: '2',
        // Copies nobody touches pause within seconds; a viewer's enter resumes them.
        RUNNER_IDLE_PAUSE_S: '3',
      }),
    );
    const storage = createStorage(loadConfig(env2));
    const b: Seeded = await seedContainerBuild(sql, storage, await demoBundle(), { workspaceId: await seedWorkspace(sql) });
    buildIds.push(b.buildId);
    const body = { workspaceId: b.workspaceId, projectId: b.projectId, buildId: b.buildId };
    const runnerClient = createRunnerClient({ baseUrl: `http://127.0.0.1:${env2.RUNNER_PORT}`, appSecret: env2.APP_SECRET });
    // Read from the records: a viewer's read of its copy counts as activity, and would keep it from pausing.
    const stateOf = (s: string, states: string[]) =>
      eventually(async () => {
        const [row] = await sql<
          { state: string }[]
        >`select state from runner_copies where session_id = ${s} order by asked_at desc limit 1`;
        return row && states.includes(row.state) ? row : null;
      }, 120_000);
    await startRunnerProcess(env2);
    const [a, p, c] = [randomUUID(), randomUUID(), randomUUID()];
    for (const s of [a, p, c]) await runnerClient.enter(s, body);
    for (const s of [a, p, c]) await stateOf(s, ['running']);
    // Pauses: all three idle into paused; two are resumed by their viewers, one stays paused.
    for (const s of [a, p, c]) await stateOf(s, ['paused']);
    await runnerClient.enter(a, body);
    await runnerClient.enter(c, body);
    await stateOf(a, ['running']);

    // Killed mid-start: a viewer's copy has been started by the engine when the runner dies (its
    // start dated, most often before its health path answered). Waiting for the container's handle
    // alone raced the start itself: a kill between the engine's create and start leaves a container
    // that never ran, which is failed, not adopted (a CI run); that window is made on purpose below.
    const d = randomUUID();
    await runnerClient.enter(d, body, 0);
    await eventually(
      async () => (await sql`select 1 from runner_copies where session_id = ${d} and started_at is not null`).length > 0,
      30_000,
      5,
    );
    await killRunner();
    // And the crash window a kill rarely hits by chance: the engine started a copy, the runner died
    // before it wrote so (state starting, a container, no start event).
    const config = loadConfig(env2);
    const settings = runnerSettings(config, true);
    const { engine, host } = createEngine(config, settings, createLogger({ name: 'test', level: 'silent' }));
    const image = (await host!.imageId(imageTagOf(b.buildId)))!;
    /** A viewer's copy recorded and started as a runner does it, by a runner that dies right after `made` when `dies` is given. */
    const startAsTheRunner = async (sessionId: string, dies: Error | null = null) => {
      const row = await insertCopy(sql, {
        ...body,
        id: randomUUID(),
        runnerId: env2.RUNNER_ID,
        sessionId,
        origin: 'viewer',
        state: 'creating',
      });
      const spec = { ...body, copyId: row.id, runnerId: env2.RUNNER_ID, image, start: ['node', 'server.js'], env: {}, ...settings.copy };
      const started = engine.start(spec, {
        signal: new AbortController().signal,
        made: async (h) => {
          await sql`update runner_copies set state = 'starting', container_id = ${h}, seq = seq + 1 where id = ${row.id}`;
          if (dies) throw dies;
        },
        running: async () => {},
        phase: () => {},
      });
      return { row, started };
    };
    const e = randomUUID();
    expect((await (await startAsTheRunner(e)).started).handle).not.toBe('');
    // And the window before it: the engine made the copy's container, the runner recorded it and
    // died before asking the engine to start it. Nothing ran, so nothing is billed: the restarted
    // runner fails the start and removes what the engine made.
    const f = randomUUID();
    const killedHere = new Error('the runner died here');
    const { row: unstarted, started: made } = await startAsTheRunner(f, killedHere);
    expect(await made.catch((err: unknown) => err)).toBe(killedHere);
    // Down for a few seconds: engine time the records must not lose.
    await sleep(3_000);
    await startRunnerProcess(env2);
    for (const s of [a, d, e]) await stateOf(s, ['running', 'paused']);
    await stateOf(f, ['ended']);
    expect(await copyById(sql, unstarted.id)).toMatchObject({ endReason: 'failed:interrupted', startedAt: null });

    // Killed mid-run, down for a few seconds again.
    await killRunner();
    await sleep(2_000);
    await startRunnerProcess(env2);
    for (const s of [a, c, d, e, p]) await runnerClient.leave(s);
    // Five removals on a loaded engine (a paused copy's among them) may take a while: a minute and a half.
    await eventually(
      async () =>
        (await docker().listContainers({ all: true, filters: JSON.stringify({ label: [`${LABEL.runner}=${env2.RUNNER_ID}`] }) })).length ===
        0,
      90_000,
      250,
    );
    const reconciled = await reconcileUsageAt(
      { baseUrl: `http://127.0.0.1:${env2.RUNNER_PORT}`, appSecret: env2.APP_SECRET },
      new Date(Date.now() - 3_600_000),
    );
    const usage = await usageAgainstEngine(sql, { workspaceIds: [b.workspaceId] });
    console.info(`${describeUsage(usage).join('\n')}\nreconciled: ${JSON.stringify(reconciled.differences)}`);
    expect(usage.copies.length).toBeGreaterThanOrEqual(5);
    expect(usageProblems(usage)).toEqual([]);

    child!.kill('SIGTERM');
    await new Promise((resolve) => child!.once('exit', resolve));
    child = null;
  });
});
