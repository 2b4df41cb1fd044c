// Every copy-second billed once (issue 46): billed usage (copySeconds, the one computation the
// statements, the roll-up and the spend check read) against the engine's own record, copy by copy,
// through faults; test/support/usage-against-engine.ts is the comparison, the fault tests' too.
//
//   podman  Real runners (runner/main.ts, each its own process) on real podman: BENCH_LIFETIMES
//           copy lifetimes (enter, run, some idle into paused and are resumed by their viewer,
//           leave), BENCH_CONCURRENCY at a time, over host A (its own fleet) and hosts B and C (one
//           fleet). Host A is SIGKILLed twice (once right after a viewer entered: mid-start) and
//           started again with the same id; host B is lost once (SIGKILL, and its containers killed:
//           the machine is gone, though its containers stay in the one podman) and C settles it,
//           its engine removing B's containers and dating their stops. The engine's record: podman's
//           State.StartedAt/FinishedAt as the runner keeps it on the copy's row when it removes a
//           container (migration 00040), and for the lost host's containers, inspected by the bench
//           as it kills them. The usage reconciliation runs on every live host before the check.
//   stub    The admission burst (bench/admission-burst-run.ts, BENCH_VIEWERS, 10,000 by default)
//           over the stub engine, whose own start/stop clock (stub-engine.ts clock()) is the truth.
//
// Prints, per part: |billed − engine| per copy (p50/p99/max, copies over 1 s), the worst
// workspace total (bound 0.1 %), double counts, unbilled engine-seconds, and each copy out of
// bounds. Fails when a bound is broken, after printing.
//   npm run bench -- usage-metering
//   BENCH_USAGE_PARTS=podman BENCH_LIFETIMES=40 BENCH_CONCURRENCY=8 npm run bench -- usage-metering
//   BENCH_USAGE_PARTS=stub BENCH_VIEWERS=2000 npm run bench -- usage-metering
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { dockerFrom } from '../runner/app.js';
import { imageTagOf } from '../runner/images/image-store.js';
import { LABEL, createRunnerClient, reconcileUsageAt, type RunnerClient } from '@demo-rooms/contract/runner';
import { loadConfig } from '../services/core/infra/config.js';
import { createSql, type Sql } from '../services/core/infra/db.js';
import { createStorage } from '../services/core/infra/storage.js';
import { freePort, kill, spawnProcess, type PlatformProcess } from '../test/faults/support/platform-processes.js';
import { demoBundle } from '../test/support/runner/demo-bundle.js';
import { seedContainerBuild, seedWorkspace, type Seeded } from '../test/support/runner/seed.js';
import { testRunnerEnv } from '../test/support/runner/test-runner.js';
import {
  describeUsage,
  type EngineRecord,
  TOLERANCE_S,
  type UsageComparison,
  usageAgainstEngine,
  WORKSPACE_TOLERANCE,
} from '../test/support/usage-against-engine.js';
import { burstShape, runBurst, viewersIn } from './admission-burst-run.js';
import { startHealthServer } from './admission-kit.js';
import { figure, step } from './report.js';

const PARTS = (process.env.BENCH_USAGE_PARTS ?? 'podman,stub').split(',');
const LIFETIMES = Number(process.env.BENCH_LIFETIMES ?? 300);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 12);
/** How long a viewer stays on a running copy before leaving (s). */
const HOLD_S = Number(process.env.BENCH_HOLD_S ?? 4);
const WORKSPACES = Number(process.env.BENCH_USAGE_WORKSPACES ?? 3);
const VIEWERS = Number(process.env.BENCH_VIEWERS ?? 10_000);

const problems: string[] = [];

function report(part: string, u: UsageComparison, extra: string[] = []) {
  console.log(`\n${part}:`);
  for (const line of [...describeUsage(u, 30), ...extra]) console.log(`  ${line}`);
  figure({ name: `${part} copies`, value: u.copies.length, unit: 'copies' });
  figure({ name: `${part} per-copy |diff| p50`, value: u.p50AbsDiffS, unit: 's' });
  figure({ name: `${part} per-copy |diff| p99`, value: u.p99AbsDiffS, unit: 's' });
  figure({ name: `${part} per-copy |diff| max`, value: u.maxAbsDiffS, unit: 's' });
  figure({ name: `${part} copies over 1 s`, value: u.over.length, unit: 'copies' });
  figure({ name: `${part} worst workspace total`, value: u.worstWorkspaceRel * 100, unit: '%' });
  figure({ name: `${part} double counts`, value: u.doubleCounts.length, unit: 'copies' });
  figure({ name: `${part} unbilled engine-seconds`, value: u.unbilledEngineSeconds, unit: 's' });
  if (u.over.length) problems.push(`${part}: ${u.over.length} copies differ by more than ${TOLERANCE_S} s`);
  if (u.worstWorkspaceRel > WORKSPACE_TOLERANCE)
    problems.push(`${part}: a workspace total is ${(u.worstWorkspaceRel * 100).toFixed(3)} % off`);
  if (u.doubleCounts.length) problems.push(`${part}: ${u.doubleCounts.length} copies billed twice`);
  if (u.unbilled.length) problems.push(`${part}: ${u.unbilledEngineSeconds.toFixed(3)} engine-seconds unbilled`);
  if (u.unjudged.length) problems.push(`${part}: ${u.unjudged.length} billed copies with no engine record`);
}

// ---------------------------------------------------------------------------------------------
// podman

interface Host {
  name: string;
  env: Record<string, string>;
  client: RunnerClient;
  process: PlatformProcess | null;
  lost: boolean;
}

async function podmanPart() {
  const dir = mkdtempSync(path.join(tmpdir(), 'usage-metering-'));
  const base = testRunnerEnv({ LOG_LEVEL: 'warn', NODE_ENV: 'production', RUNNER_RECONCILE_S: '2', RUNNER_IDLE_PAUSE_S: '3' });
  const sql = createSql(base.DATABASE_URL, { max: 4 });
  const docker = dockerFrom(base.DOCKER_HOST);
  const bundle = await step('building the demo image', () => demoBundle());
  const builds: Seeded[] = [];
  for (let i = 0; i < WORKSPACES; i++)
    builds.push(
      await step('seeding a workspace and its build', async () =>
        seedContainerBuild(sql, createStorage(loadConfig(base)), bundle, { workspaceId: await seedWorkspace(sql, 'enterprise') }),
      ),
    );
  const fleetBC = `usage-${randomUUID().slice(0, 8)}`;
  const hostOf = async (name: string, fleet: string | null): Promise<Host> => {
    const runnerId = `usage-${name.toLowerCase()}-${randomUUID().slice(0, 6)}`;
    const env: Record<string, string> = {
      ...base,
      RUNNER_ID: runnerId,
      RUNNER_FLEET: fleet ?? runnerId,
      RUNNER_HOST_LOST_S: '10',
      RUNNER_PORT: String(await freePort()),
    };
    return {
      name,
      env,
      client: createRunnerClient({ baseUrl: `http://127.0.0.1:${env.RUNNER_PORT}`, appSecret: env.APP_SECRET }),
      process: null,
      lost: false,
    };
  };
  const hosts = [await hostOf('A', null), await hostOf('B', fleetBC), await hostOf('C', fleetBC)];
  const [A, B, C] = hosts;
  const start = async (h: Host) => {
    h.process = spawnProcess(h.name, 'runner/main.ts', h.env, dir);
    for (const deadline = Date.now() + 240_000; ; ) {
      if (h.process.child.exitCode !== null) throw new Error(`host ${h.name} exited:\n${h.process.tail()}`);
      if ((await fetch(`http://127.0.0.1:${h.env.RUNNER_PORT}/healthz`).catch(() => null))?.ok) return;
      if (Date.now() > deadline) throw new Error(`host ${h.name} did not answer within 240 s`);
      await sleep(100);
    }
  };
  const containersOf = async (h: Host) =>
    docker.listContainers({ all: true, filters: JSON.stringify({ label: [`${LABEL.runner}=${h.env.RUNNER_ID}`] }) });
  const lostRecords: EngineRecord[] = [];
  try {
    await step('starting hosts A, B and C', () => Promise.all(hosts.map(start)));
    for (const h of hosts)
      for (const b of builds)
        await step(`loading the demo image on ${h.name}`, async () => {
          for (;;) {
            const r = await h.client.prepare(b.buildId, 60_000);
            if (r.image === 'ready') return;
            if (r.image === 'failed') throw new Error(r.detail ?? 'image failed');
          }
        });

    let done = 0;
    let failed = 0;
    let paused = 0;
    const errors = new Map<string, number>();
    const chaos: string[] = [];
    const t0 = Date.now();
    const lifetime = async (i: number) => {
      const b = builds[i % builds.length];
      const body = { workspaceId: b.workspaceId, projectId: b.projectId, buildId: b.buildId };
      const live = hosts.filter((h) => !h.lost);
      const h = live[i % live.length];
      const session = randomUUID();
      const stateIs = async (states: string[], ms: number) => {
        const until = Date.now() + ms;
        for (;;) {
          // From the records: a viewer's read of its copy counts as activity, and would keep it from pausing.
          const [v] = await sql<{ state: string; endReason: string | null }[]>`
            select state, end_reason from runner_copies where session_id = ${session} order by asked_at desc limit 1`;
          if (v && states.includes(v.state)) return v.state;
          if (v?.state === 'ended') throw new Error(`copy ended: ${v.endReason}`);
          if (Date.now() > until) throw new Error(`not ${states.join('/')} within ${ms} ms`);
          await sleep(200);
        }
      };
      const retry = async <T>(call: () => Promise<T>) => {
        for (let n = 0; ; n++) {
          try {
            return await call();
          } catch (err) {
            // A host killed and started again refuses its connections meanwhile.
            if (n > 300 || h.lost || (err as Error).message.startsWith('copy ended')) throw err;
            await sleep(500);
          }
        }
      };
      try {
        await retry(() => h.client.enter(session, body, 0));
        await retry(() => stateIs(['running'], 120_000));
        if (i % 3 === 0) {
          await retry(() => stateIs(['paused'], 60_000));
          paused++;
          await sleep(1_000);
          await retry(() => h.client.enter(session, body, 0));
          await retry(() => stateIs(['running'], 60_000));
        }
        await sleep(HOLD_S * 1000);
        await retry(() => h.client.leave(session));
      } catch (err) {
        failed++;
        const why = (err as Error).message.slice(0, 80);
        errors.set(why, (errors.get(why) ?? 0) + 1);
        await h.client.leave(session).catch(() => {});
      } finally {
        done++;
      }
    };
    const chaosAt = (fraction: number) => done >= Math.floor(LIFETIMES * fraction);
    const midStart = randomUUID();
    const chaosDone = { first: false, lost: false, second: false };
    const chaosLoop = (async () => {
      while (done < LIFETIMES) {
        if (!chaosDone.first && chaosAt(0.25)) {
          chaosDone.first = true;
          await kill(A.process!);
          chaos.push(`A SIGKILLed mid-run at ${((Date.now() - t0) / 1000).toFixed(0)} s`);
          await sleep(2_000);
          await start(A);
        }
        if (!chaosDone.lost && chaosAt(0.5)) {
          chaosDone.lost = true;
          B.lost = true;
          // The machine is gone: the runner and its containers die together, at once (killed one
          // after another, or after the runner's exit, they would run on for seconds the host's
          // last beat cannot know of). Those listed now die with the process; any it started
          // meanwhile, right after. What the engine ran is read as they die.
          const killAll = (ids: string[]) =>
            Promise.all(
              ids.map((id) =>
                docker
                  .getContainer(id)
                  .kill()
                  .catch(() => {}),
              ),
            );
          const held = await containersOf(B);
          await Promise.all([kill(B.process!), killAll(held.map((c) => c.Id))]);
          const lostOnes = await containersOf(B);
          await killAll(lostOnes.map((c) => c.Id));
          for (const c of lostOnes) {
            const ctr = docker.getContainer(c.Id);
            const info = await ctr.inspect();
            const at = (s: string) => (s && !s.startsWith('0001') ? new Date(s) : null);
            lostRecords.push({ copyId: c.Labels[LABEL.copy], startedAt: at(info.State.StartedAt), finishedAt: at(info.State.FinishedAt) });
          }
          // Not removed: the same podman serves C, whose settling of B reads their FinishedAt and removes them.
          chaos.push(`B lost at ${((Date.now() - t0) / 1000).toFixed(0)} s with ${lostRecords.length} containers`);
        }
        if (!chaosDone.second && chaosAt(0.75)) {
          chaosDone.second = true;
          // Mid-start: a viewer has just entered on A.
          const b = builds[0];
          await A.client.enter(midStart, { workspaceId: b.workspaceId, projectId: b.projectId, buildId: b.buildId }, 0).catch(() => {});
          await kill(A.process!);
          chaos.push(`A SIGKILLed mid-start at ${((Date.now() - t0) / 1000).toFixed(0)} s`);
          await sleep(2_000);
          await start(A);
          // Its viewer leaves once the runner is back, as any viewer would.
          for (
            let n = 0;
            n < 60 &&
            !(await A.client
              .leave(midStart)
              .then(() => true)
              .catch(() => false));
            n++
          )
            await sleep(500);
        }
        await sleep(200);
      }
    })();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < LIFETIMES) await lifetime(next++);
      }),
    );
    await chaosLoop;
    console.log(
      `podman: ${LIFETIMES} lifetimes (${paused} paused and resumed, ${failed} cut short) in ${((Date.now() - t0) / 1000).toFixed(0)} s; ${chaos.join('; ')}`,
    );
    for (const [why, n] of errors) console.log(`  cut short ${n}×: ${why}`);

    // Every viewer has left: the live hosts have removed every copy, and C settles B (its copies'
    // stop dated at B's last beat, then at podman's FinishedAt as C's engine removes them).
    await step('waiting for A, B and C to hold no container, and for C to settle B', async () => {
      for (const deadline = Date.now() + 300_000; ; ) {
        const left = (await containersOf(A)).length + (await containersOf(B)).length + (await containersOf(C)).length;
        const [live] = await sql<{ n: number }[]>`
          select count(*)::int as n from runner_copies where workspace_id = any(${builds.map((b) => b.workspaceId)}) and state <> 'ended'`;
        if (!left && !live.n) return;
        if (Date.now() > deadline) throw new Error(`${left} containers and ${live.n} live records left`);
        await sleep(1_000);
      }
    });
    const since = new Date(t0 - 60_000);
    for (const h of [A, C]) {
      const r = await reconcileUsageAt({ baseUrl: `http://127.0.0.1:${h.env.RUNNER_PORT}`, appSecret: h.env.APP_SECRET }, since);
      console.log(
        `  usage reconcile on ${h.name}: ${r.copies} copies, ${r.within} within 1 s, ${r.unjudged} unjudged, differences: ${
          r.differences
            .map(
              (d) =>
                `${d.kind}${d.fixed ? ' (fixed)' : ''} ${d.copyId.slice(0, 8)} ${d.billedSeconds.toFixed(2)}/${d.engineSeconds.toFixed(2)}`,
            )
            .join(', ') || 'none'
        }`,
      );
    }
    const usage = await usageAgainstEngine(sql, { workspaceIds: builds.map((b) => b.workspaceId), engine: lostRecords });
    const lostIds = new Set(lostRecords.map((r) => r.copyId));
    const onLost = usage.copies.filter((c) => lostIds.has(c.copyId));
    report('podman', usage, [
      `host B's ${onLost.length} copies when it was lost: billed − engine ${onLost.map((c) => c.diffSeconds.toFixed(2)).join(', ') || 'none'} s (C dates their stop at podman's FinishedAt)`,
    ]);
  } finally {
    for (const h of hosts) if (h.process && h.process.child.exitCode === null) h.process.child.kill('SIGTERM');
    await sleep(3_000);
    for (const h of hosts) {
      if (h.process && h.process.child.exitCode === null) await kill(h.process);
      for (const c of await containersOf(h))
        await docker
          .getContainer(c.Id)
          .remove({ force: true })
          .catch(() => {});
    }
    for (const b of builds)
      await docker
        .getImage(imageTagOf(b.buildId))
        .remove()
        .catch(() => {});
    await sql`delete from runner_hosts where fleet = any(${[fleetBC, A.env.RUNNER_ID]})`.catch(() => {});
    await sql.end({ timeout: 2 });
  }
}

// ---------------------------------------------------------------------------------------------
// stub

async function stubPart(sql: Sql) {
  const health = await startHealthServer();
  try {
    const groups = burstShape(VIEWERS);
    const r = await step(`a burst of ${viewersIn(groups)} viewers on the stub engine`, () =>
      runBurst({
        groups,
        hosts: 4,
        hostCapacity: 1750,
        startDelayMs: 0,
        dwellMs: 1_000,
        healthPort: health.port,
        pool: 10,
        giveUpMs: 900_000,
      }),
    );
    const seen = new Map<string, number>();
    for (const c of r.engineClock) seen.set(c.copyId, (seen.get(c.copyId) ?? 0) + 1);
    const twice = [...seen.values()].filter((n) => n > 1).length;
    const usage = await usageAgainstEngine(sql, { workspaceIds: r.workspaceIds, engine: r.engineClock });
    report('stub', usage, [
      `${viewersIn(groups)} viewers, ${r.engineClock.length} runs on the stub clock (${twice} copy ids started twice), ${r.leftInEngines} left in the engines`,
    ]);
    if (twice) problems.push(`stub: ${twice} copies started twice`);
  } finally {
    await health.close();
  }
}

if (PARTS.includes('podman')) await step('the podman part', () => podmanPart());
if (PARTS.includes('stub')) {
  const sql = createSql(testRunnerEnv().DATABASE_URL, { max: 4 });
  try {
    await step('the stub part', () => stubPart(sql));
  } finally {
    await sql.end({ timeout: 2 });
  }
}
if (problems.length) {
  console.error(`\nusage against the engine, out of bounds:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
process.exit(0);
