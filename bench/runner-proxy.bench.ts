// The room's copy proxy (services/room/copy-proxy.ts) against nginx `proxy_pass` to the same copy
// (keep-alive upstream, one worker) and against the copy's port directly: requests per second and
// latency from the same load generator, 32 keep-alive connections, small JSON answers from the
// demo. wrk drives the load when it is installed (it costs far less CPU than a Node generator on
// a 2-core machine); otherwise bench/load.ts. The proxy runs single-process, as in one room process.
//   npm run bench -- runner-proxy      (needs the test services and nginx: apt-get install nginx)
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { newSession, startKit } from './runner-kit.js';

const run = promisify(execFile);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
type Load = { rps: number; p50: number; p99: number; errors: number };

async function hasCommand(name: string) {
  return run('sh', ['-c', `command -v ${name}`]).then(() => true, () => false);
}

async function loadWithWrk(url: string): Promise<Load> {
  const { stdout } = await run('wrk', ['-t1', '-c32', `-d${SECONDS}s`, '--latency', url], { maxBuffer: 1 << 20 });
  const msOf = (v: string, unit: string) => Number(v) * (unit === 'us' ? 0.001 : unit === 's' ? 1000 : 1);
  const latency = (q: string) => {
    const m = new RegExp(`${q}%\\s+([\\d.]+)(us|ms|s)`).exec(stdout);
    return m ? msOf(m[1], m[2]) : NaN;
  };
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? '0';
  return { rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)![1]), p50: latency('50'), p99: latency('99'), errors: Number(errors) };
}

async function loadWithNode(url: string): Promise<Load> {
  const plan = JSON.stringify({ url, paths: ['/', '/page?x=1'], concurrency: 32, seconds: SECONDS });
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bench/load.ts', plan], { maxBuffer: 1 << 20 });
  const r = JSON.parse(stdout.trim());
  return { rps: r.rps, p50: r.p50, p99: r.p99, errors: r.errors + r.statusOther };
}

async function startNginx(upstream: string, port: number) {
  const prefix = await mkdtemp(join(tmpdir(), 'nginx-proxy-bench-'));
  const conf = `worker_processes 1; error_log ${prefix}/error.log; pid ${prefix}/nginx.pid; daemon off; user root;
events { worker_connections 1024; }
http { access_log off; keepalive_requests 100000;
  upstream copy { server ${upstream}; keepalive 64; }
  server { listen 127.0.0.1:${port};
    location / { proxy_pass http://copy; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_set_header Host $host; } } }\n`;
  await writeFile(join(prefix, 'nginx.conf'), conf);
  const nginx = spawn('nginx', ['-p', prefix, '-c', join(prefix, 'nginx.conf')], { stdio: 'inherit' });
  return { stop: async () => { nginx.kill('SIGQUIT'); await rm(prefix, { recursive: true, force: true }); } };
}

const load = (await hasCommand('wrk')) ? loadWithWrk : loadWithNode;
const withNginx = await hasCommand('nginx');
// A copy with more room than the default half core, so the proxy, not the demo, is what is measured.
const kit = await startKit({ RUNNER_WARM_MAX: '0', RUNNER_COPY_CPUS: '2' });
const nginxPort = 19_000 + Math.floor(Math.random() * 1000);
let nginx: { stop(): Promise<void> } | null = null;
try {
  const session = newSession();
  const view = await kit.runner.client.enter(session, kit.body, 30_000);
  kit.route(view.target!);
  const direct = `http://${view.target!.host}:${view.target!.port}`;
  if (withNginx) nginx = await startNginx(`${view.target!.host}:${view.target!.port}`, nginxPort);
  const nginxUrl = `http://127.0.0.1:${nginxPort}/`;
  // Warm every path once, then measure each in turn.
  for (const url of [direct, kit.proxyUrl, ...(nginx ? [nginxUrl] : [])]) await load(url);
  const d = await load(direct);
  const n = nginx ? await load(nginxUrl) : null;
  const p = await load(kit.proxyUrl);
  const line = (name: string, r: Load) => console.log(`${name.padEnd(20)} ${r.rps.toFixed(0)} req/s (p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, errors ${r.errors})`);
  console.log(`load generator: ${load === loadWithWrk ? 'wrk -t1 -c32' : 'bench/load.ts, 32 connections'}, ${SECONDS} s each`);
  line('direct to the copy:', d);
  if (n) line('nginx proxy_pass:', n);
  line('the room\'s proxy:', p);
  console.log(`ratio proxy / direct: ${(p.rps / d.rps).toFixed(2)}x of the requests per second; added p50 ${(p.p50 - d.p50).toFixed(2)} ms`);
  if (n) console.log(`ratio proxy / nginx:  ${(p.rps / n.rps).toFixed(2)}x of nginx's requests per second (target 0.8); nginx added p50 ${(n.p50 - d.p50).toFixed(2)} ms`);
  await kit.runner.client.leave(session);
} finally {
  await nginx?.stop();
  await kit.close();
}
