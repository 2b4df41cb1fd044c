// The room's copy proxy (services/room/copy-proxy.ts) against the copy's port directly: requests
// per second from the same load generator (its own process), 32 keep-alive connections, small
// JSON answers from the demo. The proxy runs single-process here, as in one room process.
//   npx tsx bench/runner-proxy.bench.ts      (needs node infra/local/test.mjs --services)
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { newSession, startKit } from './runner-kit.js';

const run = promisify(execFile);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

async function load(url: string) {
  const plan = JSON.stringify({ url, paths: ['/', '/page?x=1'], concurrency: 32, seconds: SECONDS });
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bench/load.ts', plan], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim()) as { rps: number; p50: number; p99: number; errors: number; statusOther: number };
}

// A copy with more room than the default half core, so the proxy, not the demo, is what is measured.
const kit = await startKit({ RUNNER_WARM_MAX: '0', RUNNER_COPY_CPUS: '2' });
try {
  const session = newSession();
  const view = await kit.runner.client.enter(session, kit.body, 30_000);
  kit.route(view.target!);
  const direct = `http://${view.target!.host}:${view.target!.port}`;
  await load(direct); // warm both ends
  const d = await load(direct);
  const p = await load(kit.proxyUrl);
  console.log(`direct to the copy: ${d.rps.toFixed(0)} req/s (p50 ${d.p50.toFixed(1)} ms, p99 ${d.p99.toFixed(1)} ms, errors ${d.errors + d.statusOther})`);
  console.log(`through the proxy:  ${p.rps.toFixed(0)} req/s (p50 ${p.p50.toFixed(1)} ms, p99 ${p.p99.toFixed(1)} ms, errors ${p.errors + p.statusOther})`);
  console.log(`ratio proxy / direct: ${(p.rps / d.rps).toFixed(2)}x of the requests per second; added p50 ${(p.p50 - d.p50).toFixed(1)} ms`);
  await kit.runner.client.leave(session);
} finally {
  await kit.close();
}
