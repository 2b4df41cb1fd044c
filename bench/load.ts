// A small HTTP load generator, run in its own process so it never shares an event loop with the
// server it measures: `concurrency` keep-alive loops for `seconds`, cycling through `paths`.
// Prints one JSON line: requests per second, latency percentiles, errors.
//   npx tsx bench/load.ts '{"url":"http://127.0.0.1:8080","paths":["/"],"concurrency":32,"seconds":5,"headers":{}}'
import { Agent, request } from 'node:http';

type Plan = { url: string; paths: string[]; concurrency: number; seconds: number; headers?: Record<string, string> };

const plan = JSON.parse(process.argv[2]) as Plan;
const target = new URL(plan.url);
const agent = new Agent({ keepAlive: true, maxSockets: plan.concurrency });
const latencies: number[] = [];
let errors = 0;
let statusOther = 0;
let bytes = 0;

function once(path: string): Promise<void> {
  const start = performance.now();
  return new Promise((resolve) => {
    const req = request({ host: target.hostname, port: target.port, path, agent, headers: plan.headers }, (res) => {
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on('end', () => {
        if (res.statusCode !== 200) statusOther++;
        latencies.push(performance.now() - start);
        resolve();
      });
    });
    req.on('error', () => {
      errors++;
      resolve();
    });
    req.end();
  });
}

const until = performance.now() + plan.seconds * 1000;
let n = 0;
await Promise.all(
  Array.from({ length: plan.concurrency }, async () => {
    while (performance.now() < until) await once(plan.paths[n++ % plan.paths.length]);
  }),
);
agent.destroy();
latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
console.log(
  JSON.stringify({
    rps: latencies.length / plan.seconds,
    bytesPerRequest: Math.round(bytes / Math.max(1, latencies.length)),
    p50: at(0.5),
    p99: at(0.99),
    errors,
    statusOther,
  }),
);
