// One burst of viewers against a fleet of real runners over stub engines (admission-kit.ts), and
// what the records say of it afterwards. bench/admission-burst.bench.ts runs a baseline and the
// 10,000-viewer burst with it; test/bench/admission-burst.int.test.ts runs a small one.
import { setTimeout as sleep } from 'node:timers/promises';
import { fork } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../services/core/infra/config.js';
import type { ViewersDone, ViewersJob } from './admission-viewers.js';
import { testRunnerEnv } from '../test/support/runner/test-runner.js';
import { planOf } from '../services/core/rules/plans.js';
import { capChecks, type Group, liveNow, queueOvertakes, type Room, seedRooms, startFleet, type Viewer } from './admission-kit.js';

/**
 * The 10,000-viewer shape: demand on every paid plan that runs containers, each room asked by
 * more viewers than its plan lets in at once (some are refused: room full), most workspaces asked
 * for more copies than their plan's copy cap (the rest queue), and more copies wanted in all than
 * the hosts hold (the host cap queues some more). Viewers per room = the room cap plus a quarter.
 */
export const BURST_10K: Group[] = [
  { plan: 'enterprise', workspaces: 5, projects: 2, viewers: 250 },
  { plan: 'organisation', workspaces: 15, projects: 2, viewers: 60 },
  { plan: 'agency', workspaces: 25, projects: 2, viewers: 35 },
  { plan: 'team', workspaces: 40, projects: 2, viewers: 22 },
  { plan: 'pro', workspaces: 120, projects: 1, viewers: 12 },
  { plan: 'solo', workspaces: 125, projects: 1, viewers: 6 },
];

/** The same shape for about `viewers` viewers: fewer workspaces on each plan, at least one. */
export function burstShape(viewers: number): Group[] {
  return BURST_10K.map((g) => ({ ...g, workspaces: Math.max(1, Math.round((g.workspaces * viewers) / 10_000)) }));
}

export const viewersIn = (groups: Group[]) => groups.reduce((n, g) => n + g.workspaces * g.projects * g.viewers, 0);

export interface BurstOptions {
  groups: Group[];
  hosts: number;
  hostCapacity: number;
  startDelayMs: number;
  /** How long a viewer stays once every viewer of the burst has had an answer and theirs runs (ms). */
  dwellMs: number;
  /** The bench's loopback health server, which every stub copy "answers" on. */
  healthPort: number;
  /** A viewer not running this long after the burst began gives up (ms); the run then says how many did. */
  giveUpMs?: number;
  /** Each runner's Postgres pool (connections; runner/main.ts leaves postgres.js's 10). */
  pool?: number;
  /** How often the live copies are sampled while the burst runs (ms). */
  sampleMs?: number;
}

export interface BurstResult {
  viewers: Viewer[];
  /** From the first enter to the last first answer, to the last viewer running, to the last leave (ms). */
  allAnsweredMs: number;
  lastRunningMs: number;
  doneMs: number;
  /** The records' own account (admission-kit.ts capChecks) and the live samples' maxima. */
  hostPeak: number;
  workspacesOver: string[];
  roomsOver: string[];
  hostOver: number;
  overtakes: number;
  sampled: { host: number; workspace: number; samples: number };
  /** Rooms whose viewers were not let in or refused as their plan says. */
  roomsWrong: string[];
  failed: Viewer[];
  waitedOut: Viewer[];
  /** The hosts' event loop (all hosts share this process) while the viewers came and went: delay p50, p99 and max (ms). */
  hostLoopDelay: { p50: number; p99: number; max: number };
  /** Copies the stub engines still held after every viewer left. */
  leftInEngines: number;
  starts: number;
  /** The workspaces of the burst, and the stub engines' own clock of every copy they ran (bench/usage-metering.bench.ts). */
  workspaceIds: string[];
  engineClock: { copyId: string; startedAt: Date | null; finishedAt: Date | null }[];
}

export async function runBurst(o: BurstOptions): Promise<BurstResult> {
  const fleet = await startFleet({
    hosts: o.hosts,
    hostCapacity: o.hostCapacity,
    startDelayMs: o.startDelayMs,
    healthPort: o.healthPort,
    pool: o.pool,
  });
  try {
    const rooms = await seedRooms(fleet.sql, o.groups);
    const workspaceIds = [...new Set(rooms.map((r) => r.room.workspaceId))];
    // Arrivals interleaved across rooms (one viewer of each room in turn), as a burst from many links.
    const most = Math.max(...rooms.map((r) => r.viewers));
    const arrivals: Room[] = [];
    for (let i = 0; i < most; i++) for (const r of rooms) if (i < r.viewers) arrivals.push(r.room);

    let sampling = true;
    const sampled = { host: 0, workspace: 0, samples: 0 };
    const sampler = (async () => {
      while (sampling) {
        const now = await liveNow(fleet.sql, workspaceIds);
        sampled.host = Math.max(sampled.host, now.host);
        sampled.workspace = Math.max(sampled.workspace, now.workspace);
        sampled.samples++;
        await sleep(o.sampleMs ?? 250);
      }
    })();

    // Whether the hosts' process kept up, or its own loop held the viewers' calls (docs/scale.md, "Tenth round").
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const done = await viewersApart({
      fleet: fleet.fleet,
      lostS: fleet.lostS,
      arrivals,
      dwellMs: o.dwellMs,
      giveUpMs: o.giveUpMs,
    });
    const viewers: Viewer[] = done.viewers.map((v, i) => ({ ...v, room: arrivals[i] }));
    loop.disable();
    const hostLoopDelay = { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 };
    const { allAnsweredMs, doneMs } = done;
    sampling = false;
    await sampler;

    const checks = await capChecks(fleet.sql, workspaceIds, fleet.hostIds, o.hostCapacity);
    const overtakes = await queueOvertakes(fleet.sql, workspaceIds);
    const roomsWrong: string[] = [];
    for (const { room, viewers: asked } of rooms) {
      const mine = viewers.filter((v) => v.room === room);
      const cap = planOf(room.plan).concurrentViewers;
      const served = mine.filter((v) => v.outcome === 'served' || v.outcome === 'waited-out').length;
      const refused = mine.filter((v) => v.outcome === 'full-room').length;
      // Nobody leaves before every viewer has had an answer: exactly the room's cap are let in or queued, the rest refused.
      if (served !== Math.min(asked, cap) || refused !== Math.max(0, asked - cap))
        roomsWrong.push(`${room.plan} room ${room.projectId}: ${served} served, ${refused} refused of ${asked} (cap ${cap})`);
    }
    // Every leave removes its copy; the last removals may still be in flight for a moment.
    let leftInEngines = 0;
    for (let i = 0; i < 50; i++) {
      leftInEngines = fleet.engines.reduce((n, e, k) => n + e.holding(fleet.hostIds[k]), 0);
      if (!leftInEngines) break;
      await sleep(100);
    }
    const running = viewers.filter((v) => v.runningMs !== null).map((v) => v.runningMs!);
    return {
      viewers,
      allAnsweredMs,
      lastRunningMs: running.length ? Math.max(...running) : 0,
      doneMs,
      hostLoopDelay,
      hostPeak: checks.hostPeak,
      hostOver: checks.hostOver,
      workspacesOver: checks.workspacesOver,
      roomsOver: checks.roomsOver,
      overtakes,
      sampled,
      roomsWrong,
      failed: viewers.filter((v) => v.outcome === 'failed'),
      waitedOut: viewers.filter((v) => v.outcome === 'waited-out'),
      leftInEngines,
      starts: fleet.engines.reduce((n, e) => n + e.starts, 0),
      workspaceIds,
      engineClock: fleet.engines.flatMap((e) => e.clock()),
    };
  } finally {
    await fleet.close();
  }
}

/** The viewers in a process of their own (admission-viewers.ts); resolves with what became of each, in arrival order. */
function viewersApart(o: Pick<ViewersJob, 'fleet' | 'lostS' | 'arrivals' | 'dwellMs' | 'giveUpMs'>): Promise<ViewersDone> {
  const config = loadConfig(testRunnerEnv());
  const job: ViewersJob = { ...o, databaseUrl: config.DATABASE_URL, appSecret: config.APP_SECRET };
  // The process loads TypeScript as the bench does (tsx), whoever started the bench (npm run bench, vitest).
  const child = fork(fileURLToPath(new URL('./admission-viewers.ts', import.meta.url)), [], {
    execArgv: [
      '--import',
      'tsx',
      ...(process.env.BENCH_VIEWERS_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_VIEWERS_PROF}`] : []),
    ],
    serialization: 'advanced',
  });
  child.send(job);
  return new Promise((resolve, reject) => {
    child.once('message', (m: ViewersDone) => resolve(m));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the viewers' process exited (${code}) before it answered`)));
  });
}

/** What is wrong with a burst, one line each; empty when every check holds. */
export function burstProblems(r: BurstResult): string[] {
  return [
    ...(r.hostOver ? [`a host held ${r.hostPeak} copies at once, over its capacity`] : []),
    ...r.workspacesOver.map((w) => `workspace over its plan's copy cap: ${w}`),
    ...r.roomsOver.map((w) => `room over its plan's viewers at once: ${w}`),
    ...(r.overtakes ? [`${r.overtakes} pairs of queued viewers let in out of order`] : []),
    ...r.roomsWrong,
    ...r.failed.slice(0, 5).map((v) => `a viewer failed: ${v.detail ?? v.first}`),
    ...(r.failed.length > 5 ? [`…and ${r.failed.length - 5} more failed`] : []),
    ...(r.waitedOut.length ? [`${r.waitedOut.length} viewers were still waiting when the bench gave up on them`] : []),
    ...(r.leftInEngines ? [`${r.leftInEngines} copies left in the engines after every viewer left`] : []),
  ];
}
