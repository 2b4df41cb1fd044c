// The admission step alone (issue 43, item 3): no runner process, no HTTP, no engine. The burst
// shape of admission-burst (bench/admission-burst-run.ts `burstShape`) is seeded, and its asks go
// all at once through the runner's own group-commit front (runner/copies/admission-batcher.ts),
// one batcher per simulated host of a fresh fleet, spread over the hosts in turn as placement
// spreads a burst over hosts with equal room. Prints decisions a second (in all, and at the peak
// over 1 s windows), the batches, and each decision's latency, against as many `select 1` round
// trips on the same Postgres and the same pool (the runner's default, 10): all at once, and one
// after another, so what admission costs beyond a round trip is plain. Checks, from the records,
// that no host, workspace or room went over its cap (admission-kit.ts capChecks) and that every
// ask was decided once (let in, queued or full). The copies it made are ended at the end.
//   npm run bench -- admission-step          (BENCH_VIEWERS=2000 for a smaller one)
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { loadConfig } from '../services/core/infra/config.js';
import { createSql } from '../services/core/infra/db.js';
import type { Ask } from '../runner/copies/admission-batch.js';
import { createAdmissionBatcher } from '../runner/copies/admission-batcher.js';
import type { Admission } from '../runner/copies/copy-admission.js';
import { testRunnerEnv } from '../test/support/runner/test-runner.js';
import { burstShape } from './admission-burst-run.js';
import { capChecks, peakIn, percentile, seedRooms } from './admission-kit.js';
import { figure, step } from './report.js';
import { ms } from './runner-kit.js';

const VIEWERS = Number(process.env.BENCH_VIEWERS ?? 10_000);
/** As admission-burst: 4 hosts × 1,750 copies, more than the plans allow this burst at once. */
const HOSTS = Number(process.env.BENCH_HOSTS ?? 4);
const HOST_CAPACITY = Number(process.env.BENCH_HOST_CAPACITY ?? 1750);

// One pool of the runner's default size for everything timed: each batcher reserves one of its
// connections for its batches (one batch in flight per host), so the 4 hosts hold 4 of the 10.
const sql = createSql(loadConfig(testRunnerEnv()).DATABASE_URL);
const fleet = `bench-step-${randomUUID().slice(0, 8)}`;
const hostIds = Array.from({ length: HOSTS }, (_, i) => `${fleet}-${i}`);
const batchers = hostIds.map((runnerId) => createAdmissionBatcher(sql, { runnerId, hostCapacity: HOST_CAPACITY }));
const perSecond = (n: number, elapsedMs: number) => n / (elapsedMs / 1000);
const rate = (n: number) => `${n.toFixed(0)}/s`;

/** `n` calls of `one` issued all at once: each one's latency and the moment it was answered (ms from the start). */
async function allAtOnce<T>(n: number, one: (i: number) => Promise<T>) {
  const t0 = performance.now();
  const done: number[] = new Array(n);
  const results = await Promise.allSettled(
    Array.from({ length: n }, (_, i) =>
      one(i).finally(() => {
        done[i] = performance.now() - t0;
      }),
    ),
  );
  return { results, done, elapsedMs: Math.max(...done) };
}

try {
  const groups = burstShape(VIEWERS);
  const rooms = await step('seeding workspaces, rooms and builds', () => seedRooms(sql, groups));
  const workspaceIds = [...new Set(rooms.map((r) => r.room.workspaceId))];
  // Arrivals interleaved across rooms (one viewer of each room in turn), as a burst from many links.
  const asks: Ask[] = [];
  for (let i = 0; i < Math.max(...rooms.map((r) => r.viewers)); i++)
    for (const { room, viewers } of rooms)
      if (i < viewers)
        asks.push({
          sessionId: randomUUID(),
          workspaceId: room.workspaceId,
          projectId: room.projectId,
          buildId: room.buildId,
          after: null,
        });
  const n = asks.length;

  // The baselines first, on a pool already open (its 10 connections made by a warm-up).
  await allAtOnce(100, () => sql`select 1`);
  const parallel = await step(`${n} select 1 at once`, () => allAtOnce(n, () => sql`select 1`));
  const t1 = performance.now();
  await step(`${n} select 1 one after another`, async () => {
    for (let i = 0; i < n; i++) await sql`select 1`;
  });
  const serialMs = performance.now() - t1;

  const admitted = await step(`${n} asks through ${HOSTS} batchers at once`, () => allAtOnce(n, (i) => batchers[i % HOSTS].admit(asks[i])));

  const kinds = new Map<Admission['kind'] | 'failed', number>();
  for (const r of admitted.results) {
    const k = r.status === 'fulfilled' ? r.value.kind : 'failed';
    kinds.set(k, (kinds.get(k) ?? 0) + 1);
  }
  const count = (k: Admission['kind'] | 'failed') => kinds.get(k) ?? 0;
  const firstError = admitted.results.find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined;
  const batches = batchers.reduce((s, b) => s + b.stats.batches, 0);
  const largest = Math.max(...batchers.map((b) => b.stats.largest));
  const decisions = perSecond(n, admitted.elapsedMs);
  // A run shorter than a second has no full window: its mean rate is its peak.
  const peak = admitted.elapsedMs >= 1000 ? peakIn(admitted.done) : decisions;
  const selectAtOnce = perSecond(n, parallel.elapsedMs);
  const selectSerial = perSecond(n, serialMs);
  const lat = { p50: percentile(admitted.done, 50), p99: percentile(admitted.done, 99) };
  const selectLat = { p50: percentile(parallel.done, 50), p99: percentile(parallel.done, 99) };

  const checks = await step('reading the caps from the records', () => capChecks(sql, workspaceIds, hostIds, HOST_CAPACITY));
  const [records] = await sql<{ creating: number; queued: number }[]>`
    select count(*) filter (where state = 'creating')::int as creating, count(*) filter (where state = 'queued')::int as queued
    from runner_copies where runner_id = any(${hostIds})`;
  const letIn = count('admitted') + count('claimed');

  console.log(
    `\n### ${n} asks into ${rooms.length} rooms of ${workspaceIds.length} workspaces, ${HOSTS} hosts × ${HOST_CAPACITY} copies, one pool of 10; load ${loadavg()[0].toFixed(1)}`,
  );
  console.log(
    `select 1, the same Postgres and pool: ${n} at once in ${ms(parallel.elapsedMs)} (${rate(selectAtOnce)}, p50 ${ms(selectLat.p50)}, p99 ${ms(selectLat.p99)}); one after another in ${ms(serialMs)} (${rate(selectSerial)})`,
  );
  console.log(
    `admission: ${n} decided in ${ms(admitted.elapsedMs)}: ${rate(decisions)} (×${(decisions / selectAtOnce).toFixed(3)} select 1 at once, ×${(decisions / selectSerial).toFixed(2)} one after another), at the peak ${peak.toFixed(0)} in 1 s (×${(peak / selectAtOnce).toFixed(3)})`,
  );
  console.log(`latency of a decision (all asked at once): p50 ${ms(lat.p50)}, p99 ${ms(lat.p99)}`);
  console.log(
    `batches: ${batches} (${batchers.map((b) => b.stats.batches).join(' + ')} a host), ${(n / batches).toFixed(0)} asks a batch on average, largest ${largest}; ${ms(admitted.elapsedMs / Math.max(...batchers.map((b) => b.stats.batches)))} a batch (a host's run one after another)`,
  );
  console.log(
    `decisions: ${count('admitted')} admitted, ${count('claimed')} claimed, ${count('queued')} queued, ${count('full')} full, ${count('existing')} existing, ${count('failed')} failed${firstError ? ` (first: ${(firstError.reason as Error)?.message ?? firstError.reason})` : ''}; records: ${records.creating} creating, ${records.queued} queued`,
  );
  console.log(
    `caps, from the records at every moment: most copies on one host ${checks.hostPeak} (cap ${HOST_CAPACITY}), workspaces over their cap ${checks.workspacesOver.length}, rooms over their cap ${checks.roomsOver.length}`,
  );

  const overAdmission = checks.hostOver + checks.workspacesOver.length + checks.roomsOver.length;
  for (const f of [
    { name: 'decisions a second', value: decisions, unit: '/s', baseline: selectAtOnce },
    { name: 'decisions a second, peak 1 s', value: peak, unit: '/s', baseline: selectAtOnce },
    { name: 'decisions a second vs select 1 one after another', value: decisions, unit: '/s', baseline: selectSerial },
    { name: 'decision latency p50', value: lat.p50, unit: 'ms', baseline: selectLat.p50 },
    { name: 'decision latency p99', value: lat.p99, unit: 'ms', baseline: selectLat.p99 },
    // Against one ask a batch: how much the group commit gathers.
    { name: 'asks a batch', value: n / batches, unit: 'asks', baseline: 1 },
    { name: 'largest batch', value: largest, unit: 'asks', baseline: 1 },
    { name: 'over-admission in the records', value: overAdmission, unit: 'count' },
  ])
    figure(f);

  const problems = [
    ...(letIn + count('queued') + count('full') !== n
      ? [`${letIn} let in + ${count('queued')} queued + ${count('full')} full ≠ ${n} asks`]
      : []),
    ...(records.creating !== count('admitted') || records.queued !== count('queued') ? ['the records do not match the decisions'] : []),
    ...(checks.hostOver ? [`a host held ${checks.hostPeak} copies at once, over its capacity`] : []),
    ...checks.workspacesOver.map((w) => `workspace over its plan's copy cap: ${w}`),
    ...checks.roomsOver.map((r) => `room over its plan's viewers at once: ${r}`),
  ];
  if (problems.length) throw new Error(`admission-step found:\n  ${problems.join('\n  ')}`);
  console.log('every check holds');
} finally {
  // Each batcher's own connection back to the pool, then the copies it made ended.
  for (const b of batchers) b.close();
  // Nothing runs them: ended, so no other bench or test counts them.
  await sql`
    update runner_copies set state = 'ended', seq = seq + 1, end_reason = 'bench', ended_at = clock_timestamp()
    where runner_id = any(${hostIds}) and state <> 'ended'`;
  await sql.end({ timeout: 2 });
}
