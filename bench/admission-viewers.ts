// The viewers of a burst (admission-burst-run.ts) in a process of their own, with the room's fleet
// client, as they are in production: in the room's processes and the viewers' browsers, not in the
// runners' event loop. The runner hosts stay in the bench's process (4 hosts in one process), so
// what the figures measure is the hosts and Postgres, not a loop shared with 10,000 clients. The
// calls go as the room's do: streams of a few h2c connections a host (runner-client.ts).
import process from 'node:process';
import { createRunnerFleet } from '../services/data/runner-fleet.js';
import { createSql } from '../services/core/infra/db.js';
import { type Room, type Viewer, viewer } from './admission-kit.js';

export interface ViewersJob {
  databaseUrl: string;
  fleet: string;
  lostS: number;
  appSecret: string;
  arrivals: Room[];
  dwellMs: number;
  giveUpMs?: number;
}

/** What the thread sends back: every viewer in arrival order (without its room: the caller has it), when all were answered and when all had gone (ms from the first enter). */
export type ViewersDone = { viewers: Omit<Viewer, 'room'>[]; allAnsweredMs: number; doneMs: number };

const job = await new Promise<ViewersJob>((resolve) => process.once('message', (m) => resolve(m as ViewersJob)));
const sql = createSql(job.databaseUrl, { max: 10 });
const { client } = createRunnerFleet(sql, {
  fleet: job.fleet,
  lostS: job.lostS,
  appSecret: job.appSecret,
  fallbackUrl: 'http://127.0.0.1:9',
});

let answered = 0;
let allAnswered!: () => void;
const everyoneAnswered = new Promise<void>((resolve) => (allAnswered = resolve));
const t0 = performance.now();
let allAnsweredMs = 0;
void everyoneAnswered.then(() => (allAnsweredMs = performance.now() - t0));
const viewers = await Promise.all(
  job.arrivals.map(async (room) => {
    let told = false;
    const once = () => {
      if (!told && ++answered === job.arrivals.length) allAnswered();
      told = true;
    };
    try {
      return await viewer(client, room, t0, everyoneAnswered, job.dwellMs, once, job.giveUpMs);
    } catch (err) {
      once();
      return {
        sessionId: '',
        room,
        first: 'failed',
        firstPlace: null,
        answeredMs: performance.now() - t0,
        firstWordMs: performance.now() - t0,
        askedAgain: 0,
        runningMs: null,
        outcome: 'failed',
        reloads: 0,
        detail: (err as Error).message,
      } satisfies Viewer;
    }
  }),
);
const doneMs = performance.now() - t0;
await sql.end({ timeout: 2 });
process.send!({ viewers: viewers.map(({ room: _, ...v }) => v), allAnsweredMs, doneMs } satisfies ViewersDone, () => process.exit(0));
