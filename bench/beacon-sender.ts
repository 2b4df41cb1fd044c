// The load of bench/beacons.bench.ts, in a process of its own so that the api's process pays
// only for answering: reads {baseUrl, origin, path, rate, seconds, sessions: [{path, cookie}]}
// (method, body) as JSON on stdin, posts each session's beacon on schedule (round robin, so with 5,000 sessions
// at 1,000 a second each session beats every 5 s) over keep-alive connections, and prints
// {sent, failed, statuses, p50, p99} as JSON.
import { Agent, request } from 'undici';

type Job = {
  baseUrl: string;
  origin: string;
  method: 'GET' | 'POST';
  rate: number;
  seconds: number;
  body: string;
  sessions: { path: string; cookie: string }[];
};

const chunks: Buffer[] = [];
for await (const c of process.stdin) chunks.push(c as Buffer);
const job = JSON.parse(Buffer.concat(chunks).toString()) as Job;
const dispatcher = new Agent({ connections: 64, pipelining: 1, keepAliveTimeout: 30_000 });

const latencies: number[] = [];
const statuses: Record<number, number> = {};
let failed = 0;
let sent = 0;
const inFlight = new Set<Promise<void>>();
const total = job.rate * job.seconds;
const t0 = performance.now();
while (sent < total) {
  const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * job.rate));
  for (; sent < due; sent++) {
    const s = job.sessions[sent % job.sessions.length];
    const b0 = performance.now();
    const p: Promise<void> = request(job.baseUrl + s.path, {
      method: job.method,
      dispatcher,
      body: job.method === 'POST' ? job.body : undefined,
      headers: {
        origin: job.origin,
        cookie: s.cookie,
        'content-type': 'application/json',
        'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 Safari/537.36',
      },
    })
      .then(async (res) => {
        await res.body.dump();
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        latencies.push(performance.now() - b0);
      })
      .catch(() => {
        failed++;
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await new Promise((r) => setTimeout(r, 2));
}
await Promise.all(inFlight);
const wall = (performance.now() - t0) / 1000;
latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? NaN;
process.stdout.write(JSON.stringify({ sent, failed, statuses, wall, p50: at(0.5), p99: at(0.99) }));
await dispatcher.close();
