// Cold start through the platform against the raw engine, same run, same image.
//   platform: a viewer enters (runner API) → the copy is made (own network, hardened, recorded)
//             → its health path answers → the first 200 through the room's copy proxy;
//   raw:      create + start the same image on the engine's default network → polled until 200.
// Interleaved, medians of each. Target: platform within 1.3x of raw.
//   npx tsx bench/runner-cold-start.bench.ts      (needs node infra/local/test.mjs --services)
import { enterRunning, median, ms, newSession, rawStart, startKit } from './runner-kit.js';
import { figure, step } from './report.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const kit = await startKit({ RUNNER_WARM_MAX: '0' });
try {
  const raw: number[] = [];
  const platform: number[] = [];
  const phases: Record<string, number[]> = {};
  await step('a raw start to warm the engine', () => rawStart(kit)); // warm the engine's caches for both
  for (let i = 0; i < RUNS; i++) {
    raw.push(await rawStart(kit));
    const session = newSession();
    const t0 = performance.now();
    const view = await step('a viewer entering (copy start)', () => enterRunning(kit, session));
    kit.route(await kit.runner.addressOf(view.copyId!));
    const res = await fetch(kit.proxyUrl + '/');
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`proxy answered ${res.status}`);
    platform.push(performance.now() - t0);
    const [row] = await kit.runner.sql<{ phases: Record<string, number> }[]>`select phases from runner_copies where id = ${view.copyId}`;
    for (const [k, v] of Object.entries(row.phases ?? {})) (phases[k] ??= []).push(v);
    await kit.runner.client.leave(session);
  }
  const r = median(raw);
  const p = median(platform);
  console.log(`runs: ${RUNS} each, interleaved`);
  console.log(`raw engine start + poll: median ${ms(r)} (min ${ms(Math.min(...raw))}, max ${ms(Math.max(...raw))})`);
  console.log(
    `platform enter → first 200 through the proxy: median ${ms(p)} (min ${ms(Math.min(...platform))}, max ${ms(Math.max(...platform))})`,
  );
  console.log(
    `phases (median ms): ${Object.entries(phases)
      .map(([k, v]) => `${k} ${median(v)}`)
      .join(', ')}`,
  );
  console.log(`ratio platform / raw: ${(p / r).toFixed(2)}x (target ≤ 1.3x)`);
  figure({ name: 'cold start, enter to first 200', value: p, unit: 'ms', baseline: r });
} finally {
  await kit.close();
}
