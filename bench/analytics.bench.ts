// Analytics at volume (issue 15, "Done when"): 1,000,000 room events over 90 days for one
// workspace (ten projects), rolled up per day by the roll-up job's own function, then
// projectAnalytics and workspaceAnalytics for the 90 days through the HTTP API with a real token,
// against a bare `select count(*)` over the same rows, as a ratio (both measured in this run).
// Then the event write path: 1,000 beacons a second through recordEvents (5 events a beacon, one
// insert each), with this process's CPU (it is the api process) as a share of one core.
// Needs the test services (`node infra/local/test.mjs --services`); `npm run bench -- analytics`.
import { randomUUID } from 'node:crypto';
import { startPlatform } from '../test/support/platform.js';
import { uniqueSlug } from '../test/support/refusal.js';
import { dayOf, nextDay, rollDay } from '../services/data/event-days.sql.js';
import { recordEvents, type RoomEvent } from '../services/data/room-events.sql.js';
import { figure } from './report.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const DAYS = 90;
const PROJECTS = 10;
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const BEACON_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const BEACONS_PER_SECOND = 1000;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const ms = (x: number) => `${x.toFixed(1)} ms`;

async function timed(runs: number, f: () => Promise<unknown>) {
  await f(); // warm
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await f();
    times.push(performance.now() - t);
  }
  return median(times);
}

const platform = await startPlatform();
const sql = platform.deps.sql;
const projectIds: string[] = [];
try {
  const person = await platform.person({ plan: 'team' });
  for (let i = 0; i < PROJECTS; i++) {
    const p = await person.client.call('createProject', { body: { slug: uniqueSlug('bench'), name: `Bench ${i}` } });
    projectIds.push(p.id);
  }
  const [{ workspaceId }] = await sql<{ workspaceId: string }[]>`select workspace_id from projects where id = ${projectIds[0]}`;
  const today = dayOf(new Date());
  let from = today;
  for (let i = 1; i < DAYS; i++) from = dayOf(new Date(Date.parse(`${from}T00:00:00Z`) - 86_400_000));
  const start = new Date(`${from}T00:00:00Z`);
  const span = (Date.now() - start.getTime()) / 1000; // seconds from the first day's start to now

  // One statement: every 20th event an entry, most of the rest time, then steps, scenarios,
  // answers, comments, hidden, shown, leave; 20 events a session.
  let t = performance.now();
  await sql`
    insert into room_events (workspace_id, project_id, link_id, session_id, visit_id, kind, subject, seconds, device, at)
    select ${workspaceId}::uuid, (${projectIds}::uuid[])[1 + g % ${PROJECTS}], null,
           md5('s' || (g / 20)::text)::uuid, null,
           (array['entry','time','time','time','time','time','time','time','time','time','time','time','time',
                  'step','scenario','answer','comment','hidden','shown','leave'])[1 + g % 20],
           case when g % 20 between 1 and 12 then 'app-' || (g % 7)
                when g % 20 = 13 then 'step-' || (g % 5)
                when g % 20 = 14 then 'scenario-' || (g % 3)
                when g % 20 = 15 then (array['yes','question','later'])[1 + g % 3]
                when g % 20 = 16 then 'app-' || (g % 7) end,
           case when g % 20 between 1 and 12 then 5 + g % 25 else 0 end,
           'desktop',
           ${start}::timestamptz + make_interval(secs => (g::float8 / ${EVENTS}) * ${span})
    from generate_series(0, ${EVENTS - 1}) g`;
  await sql`analyze room_events`;
  const loadMs = performance.now() - t;

  t = performance.now();
  for (let d = from; d < today; d = nextDay(d)) await rollDay(sql, d);
  const rollMs = performance.now() - t;
  await sql`analyze event_days`;

  const end = new Date(`${nextDay(today)}T00:00:00Z`);
  const countMs = await timed(
    RUNS,
    () => sql`select count(*) from room_events where workspace_id = ${workspaceId} and at >= ${start} and at < ${end}`,
  );
  const [{ n }] = await sql<
    { n: number }[]
  >`select count(*)::int as n from room_events where workspace_id = ${workspaceId} and at >= ${start} and at < ${end}`;
  const get = async (path: string) => {
    const res = await platform.fetch(path, { token: person.token });
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
    return res.body;
  };
  const projectMs = await timed(RUNS, () => get(`/api/projects/${projectIds[0]}/analytics/${from}/${today}`));
  const workspaceMs = await timed(RUNS, () => get(`/api/analytics/${from}/${today}`));
  const check = await person.client.call('workspaceAnalytics', { params: { from, to: today } });
  const views = check.totals.views;

  console.log(`events: ${n} over ${DAYS} days (${from} to ${today}), ${PROJECTS} projects; loaded in ${(loadMs / 1000).toFixed(1)} s`);
  console.log(`roll-up of ${DAYS - 1} past days: ${(rollMs / 1000).toFixed(1)} s (${ms(rollMs / (DAYS - 1))} a day)`);
  console.log(`workspaceAnalytics views over the range: ${views} (entries generated: ${Math.ceil(EVENTS / 20)})`);
  console.log(`select count(*) over the same rows:  median ${ms(countMs)} (${RUNS} runs)`);
  console.log(`projectAnalytics, ${DAYS} days (HTTP):   median ${ms(projectMs)}; ratio to count(*) ${(projectMs / countMs).toFixed(2)}`);
  console.log(
    `workspaceAnalytics, ${DAYS} days (HTTP): median ${ms(workspaceMs)}; ratio to count(*) ${(workspaceMs / countMs).toFixed(2)}`,
  );
  figure({ name: 'projectAnalytics over the range (HTTP)', value: projectMs, unit: 'ms', baseline: countMs });
  figure({ name: 'workspaceAnalytics over the range (HTTP)', value: workspaceMs, unit: 'ms', baseline: countMs });

  // The write path: 1,000 beacons a second, 5 events each, one insert a beacon.
  const source = { workspaceId, projectId: projectIds[1], linkId: null, visitId: null, device: 'desktop' as const };
  const beacon = (): RoomEvent[] => [
    { kind: 'time', subject: 'app-1', seconds: 5 },
    { kind: 'time', subject: 'app-2', seconds: 3 },
    { kind: 'step', subject: 'step-1' },
    { kind: 'hidden' },
    { kind: 'shown' },
  ];
  const latencies: number[] = [];
  let sent = 0;
  let failed = 0;
  const inFlight = new Set<Promise<void>>();
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  const total = BEACONS_PER_SECOND * BEACON_SECONDS;
  while (sent < total) {
    // Keep to the schedule: every beacon whose time has come is sent now.
    const due = Math.min(total, Math.floor(((performance.now() - wall0) / 1000) * BEACONS_PER_SECOND));
    for (; sent < due; sent++) {
      const b0 = performance.now();
      const p: Promise<void> = recordEvents(sql, { ...source, sessionId: randomUUID() }, beacon())
        .then(
          () => {
            latencies.push(performance.now() - b0);
          },
          () => {
            failed++;
          },
        )
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  await Promise.all(inFlight);
  const wall = (performance.now() - wall0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const share = (cpu.user + cpu.system) / 1e6 / wall;
  console.log(
    `beacons: ${sent} in ${wall.toFixed(1)} s (${(sent / wall).toFixed(0)}/s, ${sent * 5} events), failed ${failed}; insert p50 ${ms(median(latencies))}, p99 ${ms(latencies.sort((a, b) => a - b)[Math.floor(latencies.length * 0.99)])}`,
  );
  console.log(`api process CPU while writing: ${(share * 100).toFixed(1)}% of a core`);
} finally {
  // The bench's projects (and with them their events and roll-ups) go, so the test database stays small.
  if (projectIds.length) await sql`delete from projects where id = any(${projectIds}::uuid[])`;
  await platform.close();
}
