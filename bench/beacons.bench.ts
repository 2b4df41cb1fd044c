// The room's beacon under load (issue 15, "Done when": writing 1,000 beacons a second keeps the
// api under 30% of a core). 5,000 viewer sessions in one room, each with its visit open, beat
// every 5 s: 1,000 POST /room/:session/beat a second over HTTP, each crediting seconds to two
// apps and writing its events (the whole route: cookie and origin checks, the session, the
// visit's time, the events' one insert). A process of its own sends them (beacon-sender.ts);
// this process is the api, and its CPU is measured while it answers. The baseline, in the same
// run and at the same rate: GET /healthz, the cost of answering the platform's HTTP at all, and a
// bare node:http server, the cost of answering HTTP on this machine.
// Needs the test services (`node infra/local/test.mjs --services`); `npm run bench -- beacons`.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startPlatform } from '../test/support/platform.js';
import { deployStaticRoom } from '../test/support/room.js';
import { createSession } from '../services/data/room-sessions.sql.js';
import { arriveInVisit } from '../services/data/visits.sql.js';
import { roomCookieName } from '../services/room/viewer/room-cookies.js';
import { figure } from './report.js';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 5000);
const RATE = Number(process.env.BENCH_RATE ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);

type Sent = { sent: number; failed: number; statuses: Record<string, number>; wall: number; p50: number; p99: number };

/** Runs the sender with `job`, measuring this process's CPU meanwhile. */
async function load(job: object): Promise<Sent & { share: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/beacon-sender.ts'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c;
  });
  const cpu0 = process.cpuUsage();
  child.stdin.end(JSON.stringify(job));
  await new Promise((resolve) => child.on('exit', resolve));
  const cpu = process.cpuUsage(cpu0);
  const sent = JSON.parse(out) as Sent;
  // Over the sender's sending time: its start-up (a second of tsx) costs this process nothing.
  return { ...sent, share: (cpu.user + cpu.system) / 1e6 / sent.wall };
}

// The room is deployed by a platform with its workers (the unpack job), which is then closed:
// the api measured below runs alone in this process, as it does in production.
const setup = await startPlatform({ workers: true });
const person = await setup.person({ plan: 'team' });
const { project } = await deployStaticRoom(setup, person);
const { link } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Bench viewers' } });
await setup.close();

const platform = await startPlatform();
const sql = platform.deps.sql;
try {
  const [{ workspaceId }] = await sql<{ workspaceId: string }[]>`select workspace_id from projects where id = ${project.id}`;
  // Sessions as the room's entry makes them, each with its visit open (the shell has arrived).
  const t = performance.now();
  const sessions: { path: string; cookie: string }[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const entryKey = `bench-${link.id}-${i}`;
    const { session, token } = await createSession(sql, { workspaceId, projectId: project.id, linkId: link.id, entryKey, preview: false });
    await arriveInVisit(sql, session, Infinity); // beyond any plan's seats: the beacon's cost is measured, not the door
    sessions.push({ path: `/room/${session.id}/beat`, cookie: `${roomCookieName(entryKey)}=${session.id}.${token}` });
  }
  console.log(`${SESSIONS} sessions with open visits made in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  const origin = new URL(platform.baseUrl).origin;
  const common = { baseUrl: platform.baseUrl, origin, rate: RATE, seconds: SECONDS };
  const beat = JSON.stringify({ time: { web: 3, admin: 2 } });
  const [{ before }] = await sql<{ before: number }[]>`select count(*)::int as before from room_events where project_id = ${project.id}`;

  // Two floors: Node's own HTTP server answering a fixed body (no framework, no database), and
  // the platform's GET /healthz.
  const bare = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const node = await load({
    ...common,
    baseUrl: `http://127.0.0.1:${(bare.address() as AddressInfo).port}`,
    method: 'GET',
    body: '',
    sessions: [{ path: '/', cookie: '' }],
  });
  bare.close();
  const floor = await load({ ...common, method: 'GET', body: '', sessions: [{ path: '/healthz', cookie: '' }] });
  const beats = await load({ ...common, method: 'POST', body: beat, sessions });

  const [{ events }] = await sql<
    { events: number }[]
  >`select count(*)::int as events from room_events where project_id = ${project.id} and kind = 'time'`;
  const [{ seconds }] = await sql<{ seconds: number }[]>`
    select coalesce(sum((select sum(v::int) from jsonb_each_text(time) as t(k, v))), 0)::int as seconds from visits where project_id = ${project.id}`;
  const pct = (x: number) => `${(x * 100).toFixed(1)}% of a core`;
  const line = (name: string, r: Sent & { share: number }) =>
    `${name}: ${r.sent} in ${r.wall.toFixed(1)} s (${(r.sent / r.wall).toFixed(0)}/s), statuses ${JSON.stringify(r.statuses)}, failed ${r.failed}; p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms; api CPU ${pct(r.share)}`;
  console.log(line('node:http, fixed body   ', node));
  console.log(line('GET /healthz (baseline)', floor));
  console.log(line('POST /room/:s/beat     ', beats));
  console.log(
    `beat CPU to /healthz: ${(beats.share / floor.share).toFixed(2)}x; to bare node:http: ${(beats.share / node.share).toFixed(2)}x; target: under 30% of a core at ${RATE}/s`,
  );
  figure({ name: 'beat CPU share', value: beats.share, unit: 'core', baseline: floor.share });
  console.log(
    `written: ${events - before} time events, ${seconds} seconds credited to visits (${beats.statuses[200] ?? 0} beats answered 200, 5 s each)`,
  );
  // A figure of refusals measures nothing: the run fails, naming what the beats were answered.
  const refused = beats.sent - (beats.statuses[200] ?? 0);
  if (refused)
    throw new Error(
      `${refused} of ${beats.sent} beats were not answered 200 (${JSON.stringify(beats.statuses)}): the figures above are not the beacon's cost`,
    );
} finally {
  await sql`delete from projects where id = ${project.id}`;
  await platform.close();
}
