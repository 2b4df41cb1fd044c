// Resume of a paused copy ("paused while away"): the viewer's activity → unpause, re-probe its
// health path, route again → the first 200 through the room's copy proxy. Target: under 300 ms.
//   npx tsx bench/runner-resume.bench.ts      (needs node infra/local/test.mjs --services)
import { enterRunning, median, ms, newSession, rawStart, startKit } from './runner-kit.js';
import { figure, step } from './report.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 10);
// Copies pause after 1 s without activity, so each run waits for its pause first.
const kit = await startKit({ RUNNER_WARM_MAX: '0', RUNNER_IDLE_PAUSE_S: '1', RUNNER_IDLE_REMOVE_S: '600' });
try {
  const resume: number[] = [];
  const session = newSession();
  await step('a viewer entering (copy start)', () => enterRunning(kit, session));
  for (let i = 0; i < RUNS; i++) {
    const paused = await kit.runner.until(session, ['paused'], 30_000);
    const t0 = performance.now();
    const view = await kit.runner.client.activity(session);
    if (view.state !== 'running' || view.copyId !== paused.copyId) throw new Error(`resume gave ${view.state}`);
    kit.route(await kit.runner.addressOf(view.copyId!));
    const res = await fetch(kit.proxyUrl + '/');
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`proxy answered ${res.status}`);
    resume.push(performance.now() - t0);
  }
  await kit.runner.client.leave(session);
  const raw = [await rawStart(kit), await rawStart(kit), await rawStart(kit)];
  const r = median(resume);
  console.log(`runs: ${RUNS}`);
  console.log(
    `resume of a paused copy, activity → first 200 through the proxy: median ${ms(r)} (max ${ms(Math.max(...resume))}); target < 300 ms`,
  );
  console.log(`raw engine start + poll, same run: median ${ms(median(raw))}; ratio resume / raw: ${(r / median(raw)).toFixed(2)}x`);
  figure({ name: 'resume of a paused copy', value: r, unit: 'ms', baseline: median(raw) });
} finally {
  await kit.close();
}
