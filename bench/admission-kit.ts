// The harness of bench/admission-burst.bench.ts: runner hosts that are the real runner (HTTP API,
// session entry, admission and queue, starter, health probe, loops, fleet beat in runner_hosts)
// over the stub engine (bench/stub-engine.ts), on the test services' Postgres; workspaces on the
// plans' caps; viewers that enter through the room's fleet client (placement by runner_hosts)
// and wait as the room does; and the checks of the caps, read from the database afterwards.
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { createRunnerFleet } from '../services/data/runner-fleet.js';
import { loadConfig } from '../services/core/infra/config.js';
import { createSql, type Sql } from '../services/core/infra/db.js';
import { LISTEN_BACKLOG } from '../services/core/infra/http/listen.js';
import { createLogger } from '../services/core/infra/log.js';
import { planOf, type PlanName } from '../services/core/rules/plans.js';
import { createStorage } from '../services/core/infra/storage.js';
import { type CopyView, type RunnerClient, runnerKey } from '@demo-rooms/contract/runner';
import { buildRunner } from '../runner/app.js';
import { runnerSettings } from '../runner/service/runner-context.js';
import { createRunnerService } from '../runner/service/runner-service.js';
import { seedContainerBuild, seedWorkspace } from '../test/support/runner/seed.js';
import { testRunnerEnv } from '../test/support/runner/test-runner.js';
import { StubEngine } from './stub-engine.js';

/** A group of workspaces on one plan: `workspaces` × `projects` rooms, `viewers` entering each room. */
export interface Group {
  plan: PlanName;
  workspaces: number;
  projects: number;
  viewers: number;
}

export interface Room {
  workspaceId: string;
  projectId: string;
  buildId: string;
  plan: PlanName;
}

export interface Fleet {
  fleet: string;
  /** RUNNER_HOST_LOST_S of its hosts: the room's fleet client reads live hosts with it. */
  lostS: number;
  hostIds: string[];
  hostCapacity: number;
  engines: StubEngine[];
  client: RunnerClient;
  sql: Sql;
  close(): Promise<void>;
}

/**
 * One stored build for every room is enough: the stub never opens a bundle, and the object store
 * is asked once per build all the same (as a seeded test build is).
 */
const BUNDLE = Buffer.from('stub bundle: the stub engine never opens it');

/**
 * The health path every stub copy answers: one loopback server, 200 to everything, in a thread of
 * its own: copies run in their own containers, and their answers are not the runners' work to
 * pay for in the runners' event loop.
 */
export async function startHealthServer(): Promise<{ port: number; close(): Promise<void> }> {
  const worker = new Worker(HEALTH_SERVER, { eval: true });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    port,
    close: async () => {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.postMessage('close');
      await exited;
    },
  };
}

const HEALTH_SERVER = `
const http = require('node:http');
const { parentPort } = require('node:worker_threads');
const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
server.keepAliveTimeout = 30_000;
// Thousands of copies' first probes arrive at once: the queue of a crowd's listener (services/core/infra/http/listen.ts).
server.listen({ port: 0, host: '127.0.0.1', backlog: ${LISTEN_BACKLOG} }, () => parentPort.postMessage(server.address().port));
parentPort.once('message', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});`;

/** `hosts` real runners over stub engines, in a fleet of their own, each registered in runner_hosts. */
export async function startFleet(opts: {
  hosts: number;
  hostCapacity: number;
  startDelayMs: number;
  healthPort: number;
  /** Each runner's Postgres pool (connections). */
  pool?: number;
}): Promise<Fleet> {
  const run = randomUUID().slice(0, 8);
  const fleet = `bench-${run}`;
  const log = createLogger({ name: 'admission-bench', level: process.env.BENCH_LOG_LEVEL ?? 'silent' });
  const hosts: { close(): Promise<void> }[] = [];
  const engines: StubEngine[] = [];
  const hostIds: string[] = [];
  let env: Record<string, string> = {};
  for (let i = 0; i < opts.hosts; i++) {
    env = testRunnerEnv({
      RUNNER_ID: `${fleet}-${i}`,
      RUNNER_FLEET: fleet,
      RUNNER_HOST_CAPACITY: String(opts.hostCapacity),
      RUNNER_COPY_PORT: String(opts.healthPort),
      RUNNER_WARM_MAX: '0',
      RUNNER_HOST_GUARD: 'off',
      RUNNER_HEALTH_TIMEOUT_S: '60',
      ...(process.env.BENCH_ARRIVALS_IN_FLIGHT ? { RUNNER_ARRIVALS_IN_FLIGHT: process.env.BENCH_ARRIVALS_IN_FLIGHT } : {}),
      // Every host lives in this one process, beside thousands of viewers' calls: a beat (every
      // 5 s) can wait past the default 20 s, and the others would then end the late host's copies
      // as lost (`host-lost`, docs/scale.md). The bench measures admission, not that.
      RUNNER_HOST_LOST_S: '600',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
    });
    const config = loadConfig(env);
    const settings = runnerSettings(config, true);
    const engine = new StubEngine({ startDelayMs: opts.startDelayMs, address: '127.0.0.1' });
    // runner/main.ts gives a runner the postgres.js default pool, 10. A runner with thousands of
    // requests in hand then pipelines 100 queries on a connection, where postgres.js 3.4.9 sent a
    // transaction's BEGIN without reserving its connection until patches/ fixed it (docs/scale.md);
    // the bench's pool is `pool` (30 by default: see admission-burst.bench.ts).
    const sql = createSql(config.DATABASE_URL, { max: opts.pool ?? 30 });
    const service = createRunnerService({ sql, storage: createStorage(config), engine, host: engine, log, settings });
    const app = await buildRunner({ engine, log, service, key: runnerKey(config.APP_SECRET) });
    // BENCH_LISTEN_BACKLOG=511 (Node's default) measures the hosts as they listened before (docs/scale.md, "Fifth round").
    await app.listen({ port: 0, host: '127.0.0.1', backlog: Number(process.env.BENCH_LISTEN_BACKLOG ?? LISTEN_BACKLOG) });
    // Advertised at the port it got, before its first beat (service.start registers it).
    settings.advertise = { apiUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, copyOrigin: null };
    await service.start();
    engines.push(engine);
    hostIds.push(settings.runnerId);
    hosts.push({
      async close() {
        await service.drain().catch(() => {});
        await app.close();
        await service.close();
        await sql.end({ timeout: 2 });
      },
    });
  }
  const config = loadConfig(env);
  const sql = createSql(config.DATABASE_URL, { max: 10 });
  const { client } = createRunnerFleet(sql, {
    fleet,
    lostS: config.RUNNER_HOST_LOST_S,
    appSecret: config.APP_SECRET,
    fallbackUrl: 'http://127.0.0.1:9',
  });
  return {
    fleet,
    lostS: config.RUNNER_HOST_LOST_S,
    hostIds,
    hostCapacity: opts.hostCapacity,
    engines,
    client,
    sql,
    async close() {
      await Promise.all(hosts.map((h) => h.close()));
      await sql`delete from runner_hosts where fleet = ${fleet}`;
      await sql.end({ timeout: 2 });
    },
  };
}

/** The workspaces, rooms and live builds of `groups`, as the api leaves them; each room with its number of viewers. */
export async function seedRooms(sql: Sql, groups: Group[]): Promise<{ room: Room; viewers: number }[]> {
  const storage = createStorage(loadConfig(testRunnerEnv()));
  const out: { room: Room; viewers: number }[] = [];
  for (const g of groups) {
    for (let w = 0; w < g.workspaces; w++) {
      const workspaceId = await seedWorkspace(sql, g.plan);
      for (let p = 0; p < g.projects; p++) {
        const seeded = await seedContainerBuild(sql, storage, BUNDLE, { workspaceId });
        out.push({ room: { ...seeded, plan: g.plan }, viewers: g.viewers });
      }
    }
  }
  return out;
}

/** What became of one viewer, in ms from the burst's start. */
export interface Viewer {
  sessionId: string;
  room: Room;
  /** The first decision: running, starting, queued (with a place), or full. */
  first: CopyView['state'];
  firstPlace: number | null;
  /** When that decision came (ms from the burst's start). */
  answeredMs: number;
  /** When the first word came: the decision, or earlier "high demand, ask again" from a host whose line of newcomers was full. */
  firstWordMs: number;
  /** Times the viewer was told to ask again before a decision. */
  askedAgain: number;
  /** When the room saw the copy running; null if it never did. */
  runningMs: number | null;
  /** What it ended as: running (then left), full (room or plan), or failed. */
  outcome: 'served' | 'full-room' | 'full-plan' | 'failed' | 'waited-out';
  /** Calls that failed (timed out) and were asked again, as a viewer reloads (or a leave is retried). */
  reloads: number;
  detail?: string;
}

/**
 * One viewer, as the room's shell drives them (services/room/shell/app-opening.ts `load`): it asks for
 * a grant, which enters with a 10 s wait for a start to settle (shell-grant.routes.ts), and asks
 * again when the runner says while queued (`retryMs`), 500 ms later while starting. A call that fails (the runner client
 * gives up after 15 s plus the wait) shows "Could not open… Reload"; the viewer reloads 2 s later,
 * and `reloads` counts it. Once running, they stay until `stayUntil` has resolved and `dwellMs`
 * more, then leave. `onAnswered` is called once the first answer is in. A viewer still not
 * running `giveUpMs` after the burst began leaves and is counted as waited out.
 */
export async function viewer(
  client: RunnerClient,
  room: Room,
  t0: number,
  stayUntil: Promise<void>,
  dwellMs: number,
  onAnswered: () => void,
  giveUpMs = Number.POSITIVE_INFINITY,
): Promise<Viewer> {
  const sessionId = randomUUID();
  const body = { workspaceId: room.workspaceId, projectId: room.projectId, buildId: room.buildId };
  const v: Viewer = {
    sessionId,
    room,
    first: 'gone',
    firstPlace: null,
    answeredMs: Number.NaN,
    firstWordMs: Number.NaN,
    askedAgain: 0,
    runningMs: null,
    outcome: 'failed',
    reloads: 0,
  };
  for (;;) {
    if (performance.now() - t0 > giveUpMs) {
      // Waited past the bench's patience: the place given up, as a viewer closing the tab does.
      await client.leave(sessionId).catch(() => {});
      v.outcome = 'waited-out';
      v.detail = `not running after ${Math.round(giveUpMs / 1000)} s`;
      return v;
    }
    let view: CopyView;
    try {
      view = await client.enter(sessionId, body, 10_000);
    } catch (err) {
      v.reloads++;
      v.detail = (err as Error).message;
      await sleep(2_000);
      continue;
    }
    if (view.version === 'busy') {
      // High demand, nothing taken yet (RUNNER_ARRIVALS_IN_FLIGHT): asked again when the host says, as the room does.
      if (Number.isNaN(v.firstWordMs)) v.firstWordMs = performance.now() - t0;
      v.askedAgain++;
      await sleep(view.retryMs ?? 2_000);
      continue;
    }
    if (Number.isNaN(v.answeredMs)) {
      if (Number.isNaN(v.firstWordMs)) v.firstWordMs = performance.now() - t0;
      v.first = view.state;
      v.firstPlace = view.state === 'queued' ? (view.place ?? null) : null;
      v.answeredMs = performance.now() - t0;
      onAnswered();
    }
    if (view.state === 'running') break;
    if (view.state === 'full') {
      v.outcome = view.detail === 'plan' ? 'full-plan' : 'full-room';
      return v;
    }
    if (view.state !== 'queued' && view.state !== 'starting') {
      v.detail = `${view.state}${view.detail ? `: ${view.detail}` : ''}`;
      return v;
    }
    // Queued: as the runner says (a jittered later time the further back in line); starting: soon.
    await sleep(view.state === 'queued' ? (view.retryMs ?? 2_000) : 500);
  }
  v.runningMs = performance.now() - t0;
  v.outcome = 'served';
  v.detail = undefined;
  await stayUntil;
  await sleep(dwellMs);
  // Leaving is asked again when the call times out, as the room's release is (up to five times).
  for (let tries = 1; ; tries++) {
    try {
      await client.leave(sessionId);
      return v;
    } catch (err) {
      v.reloads++;
      if (tries === 5) {
        v.detail = `could not leave: ${(err as Error).message}`;
        return v;
      }
      await sleep(2_000);
    }
  }
}

/**
 * The most copies there ever were at once, per host, workspace and room, from the records' own
 * clocks, against the caps: each copy counts from the moment admission reserved it (admitted_at;
 * asked_at for a room, where a place in the queue counts too) to its end (ended_at). Every one of
 * those times is written with clock_timestamp() (copies.sql.ts), and an admission counts slots
 * only after the end that freed one committed, so an end is always earlier than the admission
 * that took its slot: this sweep sees every moment, not samples of them.
 */
export async function capChecks(
  sql: Sql,
  workspaceIds: string[],
  hostIds: string[],
  hostCapacity: number,
): Promise<{ hostPeak: number; hostOver: number; workspacesOver: string[]; roomsOver: string[]; workspacePeaks: Map<string, number> }> {
  const peaks = async (key: 'workspace_id' | 'project_id' | 'runner_id', from: 'admitted_at' | 'asked_at', viewersOnly: boolean) => {
    const scope = key === 'runner_id' ? sql`runner_id = any(${hostIds})` : sql`workspace_id = any(${workspaceIds})`;
    const only = viewersOnly ? sql`and session_id is not null` : sql``;
    const rows = await sql<{ k: string; most: number }[]>`
      with spans as (
        select ${sql(key)}::text as k, ${sql(from)} as t, 1 as d from runner_copies where ${scope} and ${sql(from)} is not null ${only}
        union all
        select ${sql(key)}::text, ended_at, -1 from runner_copies where ${scope} and ${sql(from)} is not null and ended_at is not null ${only}
      )
      select k, max(n)::int as most from (select k, sum(d) over (partition by k order by t, d rows unbounded preceding) as n from spans) s
      group by k`;
    return new Map(rows.map((r) => [r.k, r.most]));
  };
  const plans = new Map(
    (await sql<{ id: string; plan: PlanName }[]>`select id, plan from workspaces where id = any(${workspaceIds})`).map((w) => [
      w.id,
      planOf(w.plan),
    ]),
  );
  const roomPlans = new Map(
    (await sql<{ id: string; workspaceId: string }[]>`select id, workspace_id from projects where workspace_id = any(${workspaceIds})`).map(
      (p) => [p.id, plans.get(p.workspaceId)!],
    ),
  );
  const host = await peaks('runner_id', 'admitted_at', false);
  const workspace = await peaks('workspace_id', 'admitted_at', false);
  const room = await peaks('project_id', 'asked_at', true);
  const hostPeak = Math.max(0, ...host.values());
  return {
    hostPeak,
    hostOver: Math.max(0, hostPeak - hostCapacity),
    workspacesOver: [...workspace].filter(([id, n]) => n > plans.get(id)!.containerCopies).map(([id, n]) => `${id}: ${n}`),
    roomsOver: [...room].filter(([id, n]) => n > roomPlans.get(id)!.concurrentViewers).map(([id, n]) => `${id}: ${n}`),
    workspacePeaks: workspace,
  };
}

/** Queued viewers let in out of their workspace's order (first come, first served): pairs admitted in the other order. */
export async function queueOvertakes(sql: Sql, workspaceIds: string[]): Promise<number> {
  const [r] = await sql<{ n: number }[]>`
    with queued as (
      select c.workspace_id, c.asked_at, c.id, c.admitted_at from runner_copies c
      where c.workspace_id = any(${workspaceIds}) and c.admitted_at is not null
        and exists (select 1 from copy_events e where e.copy_id = c.id and e.kind = 'queued')
    )
    select count(*)::int as n from queued a join queued b on a.workspace_id = b.workspace_id
    where (a.asked_at, a.id) < (b.asked_at, b.id) and a.admitted_at > b.admitted_at`;
  return r.n;
}

/** Live copies now per host and per workspace (a sample, read while the burst runs). */
export async function liveNow(sql: Sql, workspaceIds: string[]): Promise<{ host: number; workspace: number }> {
  const [r] = await sql<{ host: number; workspace: number }[]>`
    select coalesce(max(n) filter (where g = 'h'), 0)::int as host, coalesce(max(n) filter (where g = 'w'), 0)::int as workspace from (
      select 'h' as g, count(*) as n from runner_copies where workspace_id = any(${workspaceIds}) and state in ('creating', 'starting', 'warm', 'running', 'paused') group by runner_id
      union all
      select 'w', count(*) from runner_copies where workspace_id = any(${workspaceIds}) and state in ('creating', 'starting', 'warm', 'running', 'paused') group by workspace_id
    ) s`;
  return r;
}

/** The most of `times` (ms) that fall within any one window of `windowMs`: a peak rate. */
export function peakIn(times: number[], windowMs = 1_000): number {
  const t = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let lo = 0, hi = 0; hi < t.length; hi++) {
    while (t[hi] - t[lo] >= windowMs) lo++;
    most = Math.max(most, hi - lo + 1);
  }
  return most;
}

/** The value below which `p` of `xs` fall (nearest rank). */
export function percentile(xs: number[], p: number): number {
  if (!xs.length) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}
