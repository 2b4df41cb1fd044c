// Warm-pool hand-off: a viewer enters while a warm copy of the build is healthy → the first 200
// through the room's copy proxy. Against the same run's raw engine start + poll, for scale.
// Target: under 50 ms.
//   npx tsx bench/runner-warm.bench.ts      (needs node infra/local/test.mjs --services)
import { setTimeout as sleep } from 'node:timers/promises';
import { median, ms, newSession, rawStart, startKit } from './runner-kit.js';
import { figure } from './report.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
// The pro plan keeps one warm copy per live build; this runner serves only the bench's workspace.
const kit = await startKit({ RUNNER_WARM_MAX: '1', RUNNER_RECONCILE_S: '1' }, { plan: 'pro', scope: true });
const warmReady = async () => {
  for (let i = 0; i < 300; i++) {
    const [w] = await kit.runner.sql<{ n: number }[]>`
      select count(*)::int as n from runner_copies where build_id = ${kit.build.buildId} and session_id is null and state = 'warm'`;
    if (w.n) return;
    await sleep(50);
  }
  throw new Error('no warm copy came');
};
try {
  const handoff: number[] = [];
  const raw: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    raw.push(await rawStart(kit));
    await warmReady();
    const session = newSession();
    const t0 = performance.now();
    const view = await kit.runner.client.enter(session, kit.body);
    if (view.state !== 'running') throw new Error(`expected a warm hand-off, got ${view.state}`);
    kit.route(await kit.runner.addressOf(view.copyId!));
    const res = await fetch(kit.proxyUrl + '/');
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`proxy answered ${res.status}`);
    handoff.push(performance.now() - t0);
    await kit.runner.client.leave(session);
  }
  const h = median(handoff);
  console.log(`runs: ${RUNS}`);
  console.log(`warm hand-off, enter → first 200 through the proxy: median ${ms(h)} (max ${ms(Math.max(...handoff))}); target < 50 ms`);
  console.log(`raw engine start + poll, same run: median ${ms(median(raw))}; ratio hand-off / raw: ${(h / median(raw)).toFixed(2)}x`);
  figure({ name: 'warm hand-off, enter to first 200', value: h, unit: 'ms', baseline: median(raw) });
} finally {
  await kit.close();
}
