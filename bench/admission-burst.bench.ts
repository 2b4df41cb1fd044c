// A burst of 10,000 viewers against the platform's admission and queue: real runners (HTTP API,
// session entry, admission under the workspace and host locks, queue, starter, health probe,
// loops, fleet placement by runner_hosts) on the test services' Postgres, with the engine stubbed
// at the CopyEngine interface only (bench/stub-engine.ts: a start takes BENCH_START_DELAYS_MS).
// Checks, from the records (never from counters of its own): no host, workspace or room ever held
// more than its cap at any moment; every viewer was let in (at once, or after a place in the
// queue, first come first served) or refused because their room was full, exactly as the plan's
// caps say. Prints the time to admit (request to running: p50/p95/p99) and the totals, each with
// its ratio to a baseline run in the same process: 100 viewers into one room of an empty fleet.
//   npm run bench -- admission-burst         (docs/scale.md holds the figures and the model)
//   BENCH_VIEWERS=2000 BENCH_START_DELAYS_MS=0 npm run bench -- admission-burst   (a quicker one)
import { loadavg } from 'node:os';
import { type BurstResult, burstProblems, burstShape, runBurst, viewersIn } from './admission-burst-run.js';
import { peakIn, percentile, startHealthServer } from './admission-kit.js';
import { ms } from './runner-kit.js';
import { figure, step } from './report.js';

const VIEWERS = Number(process.env.BENCH_VIEWERS ?? 10_000);
/**
 * Runner hosts, and copies each takes (RUNNER_HOST_CAPACITY): 4 × 1,750 = 7,000 slots, more than
 * the 6,775 copies the plans allow this burst at once, so the plans' caps bind and not the hosts
 * (BENCH_HOST_CAPACITY=1000 makes the hosts bind too). Few hosts on purpose: every host's
 * admission pass walks the whole fleet's queue under its locks (docs/scale.md, "First limits").
 */
const HOSTS = Number(process.env.BENCH_HOSTS ?? 4);
const HOST_CAPACITY = Number(process.env.BENCH_HOST_CAPACITY ?? 1750);
const DELAYS = (process.env.BENCH_START_DELAYS_MS ?? '0,200').split(',').map(Number);
/** How long a viewer stays once everyone has an answer and their copy runs (ms): then they leave and the queue moves. */
const DWELL_MS = Number(process.env.BENCH_DWELL_MS ?? 1_000);
/** A viewer still not running this long after the burst began gives up, and the run fails saying how many did (s). */
const GIVE_UP_S = Number(process.env.BENCH_GIVE_UP_S ?? 900);

/**
 * Each runner's Postgres pool: the runner's own, 10 (runner/main.ts). Admission in batches holds
 * one connection a host whatever the crowd (docs/scale.md "Admission").
 */
const POOL = Number(process.env.BENCH_RUNNER_POOL ?? 10);

// A promise nobody holds that rejects (the Postgres driver's UNSAFE_TRANSACTION did, before its
// patch) is counted and reported with the figures, not a crash that loses them.
const stray: string[] = [];
process.on('unhandledRejection', (err) => void stray.push((err as Error)?.message ?? String(err)));
const health = await startHealthServer();
const groups = burstShape(VIEWERS);
const baselineGroups = [{ plan: 'enterprise' as const, workspaces: 1, projects: 1, viewers: 100 }];

const stats = (r: BurstResult) => {
  const atOnce = r.viewers.filter((v) => v.runningMs !== null && v.first !== 'queued').map((v) => v.runningMs!);
  const queued = r.viewers.filter((v) => v.runningMs !== null && v.first === 'queued').map((v) => v.runningMs!);
  const answers = r.viewers.map((v) => v.answeredMs).filter((x) => !Number.isNaN(x));
  const firstWords = r.viewers.map((v) => v.firstWordMs).filter((x) => !Number.isNaN(x));
  const pick = (xs: number[]) => ({ p50: percentile(xs, 50), p95: percentile(xs, 95), p99: percentile(xs, 99), n: xs.length });
  return {
    atOnce: pick(atOnce),
    queued: pick(queued),
    answers: pick(answers),
    firstWords: pick(firstWords),
    toldAgain: { viewers: r.viewers.filter((v) => v.askedAgain).length, times: r.viewers.reduce((n, v) => n + v.askedAgain, 0) },
    // Every first answer is an admission decision (let in, a place in the queue, or full).
    decisionsPeak: peakIn(answers),
    decisionsMean: answers.length / (Math.max(...answers, 1) / 1000),
    overAdmission: r.hostOver + r.workspacesOver.length + r.roomsOver.length,
    reloads: r.viewers.reduce((n, v) => n + v.reloads, 0),
  };
};
const count = (r: BurstResult, what: string) => r.viewers.filter((v) => v.outcome === what).length;
const ratio = (a: number, b: number) => (b > 0 ? `×${(a / b).toFixed(1)}` : '—');

let failed = false;
try {
  for (const delay of DELAYS) {
    const label = `start ${delay} ms`;
    const shape = {
      hosts: HOSTS,
      hostCapacity: HOST_CAPACITY,
      startDelayMs: delay,
      dwellMs: DWELL_MS,
      healthPort: health.port,
      giveUpMs: GIVE_UP_S * 1000,
      pool: POOL,
    };
    const base = await step(`baseline (100 viewers, ${label})`, () => runBurst({ groups: baselineGroups, ...shape }));
    const b = stats(base);
    const burst = await step(`burst (${viewersIn(groups)} viewers, ${label})`, () => runBurst({ groups, ...shape }));
    const s = stats(burst);
    const workspaces = groups.reduce((n, g) => n + g.workspaces, 0);
    const rooms = groups.reduce((n, g) => n + g.workspaces * g.projects, 0);
    console.log(
      `\n### ${viewersIn(groups)} viewers into ${rooms} rooms of ${workspaces} workspaces (${groups.map((g) => `${g.plan} ${g.workspaces}`).join(', ')}), ${HOSTS} hosts × ${HOST_CAPACITY} copies (pool ${POOL}), engine start ${delay} ms, stay ${DWELL_MS} ms; load ${loadavg()[0].toFixed(1)}`,
    );
    console.log(
      `outcomes: ${count(burst, 'served')} served (${s.atOnce.n} at once, ${s.queued.n} after a place in the queue), ${count(burst, 'full-room')} refused (room full), ${count(burst, 'full-plan')} refused (plan), ${burst.failed.length} failed, ${burst.waitedOut.length} still waiting after ${GIVE_UP_S} s; ${burst.starts} engine starts; ${burst.viewers.filter((v) => v.reloads).length} viewers saw a call time out and reloaded (${burst.viewers.reduce((n, v) => n + v.reloads, 0)} reloads)`,
    );
    console.log(
      `caps, from the records at every moment: most copies on one host ${burst.hostPeak} (cap ${HOST_CAPACITY}), workspaces over their cap ${burst.workspacesOver.length}, rooms over their cap ${burst.roomsOver.length}, queued viewers let in out of order ${burst.overtakes}; live samples (${burst.sampled.samples}): most ${burst.sampled.host} on a host, ${burst.sampled.workspace} in a workspace`,
    );
    const line = (name: string, x: { p50: number; p95: number; p99: number }, y: { p50: number; p95: number; p99: number }) =>
      console.log(
        `${name}: p50 ${ms(x.p50)} (${ratio(x.p50, y.p50)}), p95 ${ms(x.p95)} (${ratio(x.p95, y.p95)}), p99 ${ms(x.p99)} (${ratio(x.p99, y.p99)})   baseline p50 ${ms(y.p50)}, p95 ${ms(y.p95)}, p99 ${ms(y.p99)}`,
      );
    line('first answer (enter: let in, a place, or full)', s.answers, b.answers);
    line('first word (the answer, or an earlier "high demand, ask again")', s.firstWords, b.firstWords);
    console.log(
      `told to ask again before an answer (a host's line of newcomers full, RUNNER_ARRIVALS_IN_FLIGHT): ${s.toldAgain.viewers} viewers, ${s.toldAgain.times} times (baseline ${b.toldAgain.viewers})`,
    );
    line('request to running, let in at once', s.atOnce, b.atOnce);
    if (s.queued.n)
      console.log(
        `request to running, after the queue: p50 ${ms(s.queued.p50)}, p95 ${ms(s.queued.p95)}, p99 ${ms(s.queued.p99)} (a queued viewer waits for ${DWELL_MS} ms stays ahead of them)`,
      );
    console.log(
      `decisions a second: at the peak ${s.decisionsPeak} (baseline ${b.decisionsPeak}, ${ratio(s.decisionsPeak, b.decisionsPeak)}), on average ${s.decisionsMean.toFixed(0)} (baseline ${b.decisionsMean.toFixed(0)})`,
    );
    console.log(
      `over-admission found in the records ${s.overAdmission} (baseline ${b.overAdmission}); calls that timed out and were asked again ${s.reloads} (baseline ${b.reloads}); copies left in the engines after the last viewer left ${burst.leftInEngines} (baseline ${base.leftInEngines})`,
    );
    console.log(
      `totals: every answer in ${ms(burst.allAnsweredMs)} (baseline ${ms(base.allAnsweredMs)}, ${ratio(burst.allAnsweredMs, base.allAnsweredMs)}), last viewer running at ${ms(burst.lastRunningMs)}, all served and gone at ${ms(burst.doneMs)}`,
    );
    const delayOf = (r: BurstResult) => `p50 ${ms(r.hostLoopDelay.p50)}, p99 ${ms(r.hostLoopDelay.p99)}, max ${ms(r.hostLoopDelay.max)}`;
    console.log(`the hosts' event-loop delay while viewers came and went: ${delayOf(burst)} (baseline ${delayOf(base)})`);
    for (const [name, x, y, unit] of [
      ['first answer p50', s.answers.p50, b.answers.p50, 'ms'],
      ['first answer p95', s.answers.p95, b.answers.p95, 'ms'],
      ['first answer p99', s.answers.p99, b.answers.p99, 'ms'],
      ['first word p99', s.firstWords.p99, b.firstWords.p99, 'ms'],
      ['viewers told to ask again', s.toldAgain.viewers, b.toldAgain.viewers, 'count'],
      ['at once to running p50', s.atOnce.p50, b.atOnce.p50, 'ms'],
      ['at once to running p99', s.atOnce.p99, b.atOnce.p99, 'ms'],
      ['every answer in', burst.allAnsweredMs, base.allAnsweredMs, 'ms'],
      ['decisions a second, peak', s.decisionsPeak, b.decisionsPeak, '/s'],
      ['decisions a second, mean', s.decisionsMean, b.decisionsMean, '/s'],
      ['over-admission in the records', s.overAdmission, b.overAdmission, 'count'],
      ['calls timed out and asked again', s.reloads, b.reloads, 'count'],
      ['copies left in the engines', burst.leftInEngines, base.leftInEngines, 'count'],
      ['viewers failed', burst.failed.length, base.failed.length, 'count'],
      ["hosts' event-loop delay p99", burst.hostLoopDelay.p99, base.hostLoopDelay.p99, 'ms'],
    ] as const)
      figure({ name: `${label}, ${name}`, value: x, unit, baseline: y });
    if (s.queued.n) figure({ name: `${label}, queued to running p50`, value: s.queued.p50, unit: 'ms' });
    figure({ name: `${label}, all served and gone`, value: burst.doneMs, unit: 'ms' });
    if (stray.length) console.log(`stray errors so far: ${stray.length} (first: ${stray[0]})`);
    const problems = [...burstProblems(base).map((p) => `baseline: ${p}`), ...burstProblems(burst)];
    if (problems.length) {
      failed = true;
      console.error(`admission-burst (${label}) found:\n  ${problems.join('\n  ')}`);
    } else console.log('every check holds');
  }
} finally {
  await health.close();
}
if (failed) throw new Error('admission-burst: a check failed (above)');
process.exit(0);
