// 40 viewers enter one demo at once with a copy cap of 10 (this host's capacity). Checks, and
// prints: exactly 10 admitted, the other 30 queued with places 1–30 in the order they were
// queued, none lost (as viewers leave, every one of the 40 gets a running copy, in queue order),
// and no container left behind. Times: the burst's admissions, the 10 first copies, the whole run.
//   npx tsx bench/runner-burst.bench.ts      (needs node infra/local/test.mjs --services)
import { setTimeout as sleep } from 'node:timers/promises';
import { median, ms, newSession, startKit } from './runner-kit.js';
import { figure } from './report.js';

const VIEWERS = 40;
const CAP = 10;
const kit = await startKit({ RUNNER_WARM_MAX: '0', RUNNER_HOST_CAPACITY: String(CAP) });
const fail = (why: string) => {
  throw new Error(`burst: ${why}`);
};
try {
  const sessions = Array.from({ length: VIEWERS }, () => newSession());
  const t0 = performance.now();
  const entered = await Promise.all(
    sessions.map(async (s) => ({ s, view: await kit.runner.client.enter(s, kit.body), at: performance.now() - t0 })),
  );
  const burstMs = performance.now() - t0;
  const admitted = entered.filter((e) => e.view.state !== 'queued');
  const queued = entered.filter((e) => e.view.state === 'queued');
  if (admitted.length !== CAP) fail(`${admitted.length} admitted, not ${CAP}`);
  if (queued.length !== VIEWERS - CAP) fail(`${queued.length} queued`);
  // Places as they stand now are 1..30 without gaps; the order is the database's order of arrival.
  const places = await Promise.all(queued.map(async (e) => (await kit.runner.client.copy(e.s)).place!));
  if ([...places].sort((a, b) => a - b).join() !== Array.from({ length: VIEWERS - CAP }, (_, i) => i + 1).join())
    fail(`places ${places.join(',')}`);
  const order = queued
    .map((e, i) => ({ s: e.s, place: places[i] }))
    .sort((a, b) => a.place - b.place)
    .map((e) => e.s);

  const firstReady = await Promise.all(admitted.map((e) => kit.runner.until(e.s, ['running'], 60_000).then(() => performance.now() - t0)));
  // Viewers leave one at a time: each departure must let in the next in line, in order.
  const running = new Set(admitted.map((e) => e.s));
  const servedOrder: string[] = [];
  const counted = async () => (await kit.runner.containers()).length;
  let most = 0;
  while (servedOrder.length < order.length) {
    const leaving = [...running][0];
    running.delete(leaving);
    await kit.runner.client.leave(leaving);
    const next = order[servedOrder.length];
    await kit.runner.until(next, ['running'], 60_000);
    servedOrder.push(next);
    running.add(next);
    most = Math.max(most, await counted());
    if (most > CAP) fail(`${most} containers at once`);
  }
  for (const s of running) await kit.runner.client.leave(s);
  const allMs = performance.now() - t0;
  for (let i = 0; i < 100 && (await counted()) > 0; i++) await sleep(100);
  const left = await counted();
  if (left) fail(`${left} containers left behind`);
  const [events] = await kit.runner.sql<{ ready: number; queued: number; fail: number }[]>`
    select count(*) filter (where kind = 'ready')::int as ready, count(*) filter (where kind = 'queued')::int as queued, count(*) filter (where kind = 'fail')::int as fail
    from copy_events where build_id = ${kit.build.buildId}`;
  console.log(
    `${VIEWERS} viewers at once, cap ${CAP}: ${admitted.length} admitted, ${queued.length} queued (places 1–${queued.length}), in ${ms(burstMs)} for all ${VIEWERS} answers (median answer ${ms(median(entered.map((e) => e.at)))})`,
  );
  console.log(`first ${CAP} copies running after: median ${ms(median(firstReady))}, last ${ms(Math.max(...firstReady))}`);
  console.log(
    `every queued viewer let in, in queue order, as others left: ${servedOrder.length}/${queued.length}; at most ${most} containers at once; all ${VIEWERS} served in ${ms(allMs)}`,
  );
  figure({ name: 'burst, first copies running (median)', value: median(firstReady), unit: 'ms' });
  figure({ name: 'burst, all viewers served', value: allMs, unit: 'ms' });
  console.log(`events: ${events.ready} ready, ${events.queued} held back, ${events.fail} failed; containers left behind: ${left}`);
} finally {
  await kit.close();
}
