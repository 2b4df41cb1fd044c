// The room's copy proxy (services/room/copy-proxy.ts) against nginx `proxy_pass` to the same copy
// (keep-alive upstream, one worker), JupyterHub's configurable-http-proxy (the npm package, a
// pinned dev dependency: the Node proxy a user would pick instead, given a route to the copy
// through its REST API) and the copy's port directly: requests per second and
// latency from the same load generator, 32 keep-alive connections, small JSON answers from the
// demo. wrk drives the load when it is installed (it costs far less CPU than a Node generator on
// a 2-core machine); otherwise bench/load.ts. The proxy runs single-process, as in one room process.
// And the data plane (issue 31: HAProxy 2.6, one thread, as nginx's one worker) on the viewer's
// path as it runs in production: the copy token checked on every request, the room's header rules
// applied, a route set over its admin socket; plus a WebSocket echo through it and direct.
//   npm run bench -- runner-proxy      (nginx too when installed: apt-get install nginx)
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { enterRunning, newSession, startKit } from './runner-kit.js';
import { startBenchDataplane, wsEchoRate, type BenchDataplane } from './dataplane-kit.js';
import { figure, step } from './report.js';

const run = promisify(execFile);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
// nginx and the data plane are measured in turns this many times: on a shared machine the load moves
// between two runs, and the median of paired ratios holds better than one pair.
const ROUNDS = Number(process.env.BENCH_RUNS ?? 5);
type Load = { rps: number; p50: number; p99: number; errors: number };

async function hasCommand(name: string) {
  return run('sh', ['-c', `command -v ${name}`]).then(
    () => true,
    () => false,
  );
}

async function loadWithWrk(url: string, headers: Record<string, string> = {}): Promise<Load> {
  const given = Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  const { stdout } = await run('wrk', ['-t1', '-c32', `-d${SECONDS}s`, '--latency', ...given, url], { maxBuffer: 1 << 20 });
  const msOf = (v: string, unit: string) => Number(v) * (unit === 'us' ? 0.001 : unit === 's' ? 1000 : 1);
  const latency = (q: string) => {
    const m = new RegExp(`${q}%\\s+([\\d.]+)(us|ms|s)`).exec(stdout);
    return m ? msOf(m[1], m[2]) : NaN;
  };
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? '0';
  return { rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)![1]), p50: latency('50'), p99: latency('99'), errors: Number(errors) };
}

async function loadWithNode(url: string, headers: Record<string, string> = {}): Promise<Load> {
  const plan = JSON.stringify({ url, paths: ['/', '/page?x=1'], concurrency: 32, seconds: SECONDS, headers });
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
  return {
    stop: async () => {
      nginx.kill('SIGQUIT');
      await rm(prefix, { recursive: true, force: true });
    },
  };
}

/**
 * configurable-http-proxy on loopback, its API on loopback too, with one route (`/`) to the copy
 * added through that API as JupyterHub adds a user's server. Resolves once the route answers.
 */
async function startChp(upstream: string, port: number) {
  const token = randomBytes(16).toString('hex');
  const apiPort = port + 1;
  const chp = spawn(
    'node_modules/.bin/configurable-http-proxy',
    ['--ip', '127.0.0.1', '--port', String(port), '--api-ip', '127.0.0.1', '--api-port', String(apiPort), '--log-level', 'warn'],
    {
      env: { ...process.env, CONFIGPROXY_AUTH_TOKEN: token },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const exited = new Promise<never>((_, reject) =>
    chp.once('exit', (code) => reject(new Error(`configurable-http-proxy exited (${code})`))),
  );
  const stop = async () => {
    chp.kill('SIGTERM');
    await new Promise((r) => (chp.exitCode === null ? chp.once('exit', r) : r(null)));
  };
  try {
    for (let i = 0; ; i++) {
      const added = await Promise.race([
        exited,
        fetch(`http://127.0.0.1:${apiPort}/api/routes/`, {
          method: 'POST',
          headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ target: `http://${upstream}` }),
        }).then(
          (r) => r.status,
          () => 0,
        ),
      ]);
      if (added === 201) break;
      if (i >= 100) throw new Error(`its API did not take the route (last answer ${added})`);
      await sleep(100);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { stop };
}

const load = (await hasCommand('wrk')) ? loadWithWrk : loadWithNode;
const withNginx = await hasCommand('nginx');
// A copy with more room than the default half core, so the proxy, not the demo, is what is measured.
const kit = await startKit({ RUNNER_WARM_MAX: '0', RUNNER_COPY_CPUS: '2' });
const nginxPort = 19_000 + Math.floor(Math.random() * 1000);
const chpPort = nginxPort + 1000;
let nginx: { stop(): Promise<void> } | null = null;
let chp: { stop(): Promise<void> } | null = null;
let dataplane: BenchDataplane | null = null;
try {
  const session = newSession();
  const view = await step('a viewer entering (copy start)', () => enterRunning(kit, session));
  const at = await kit.runner.addressOf(view.copyId!);
  kit.route(at);
  const upstream = `${at.host}:${at.port}`;
  const direct = `http://${upstream}`;
  if (withNginx) nginx = await step('starting nginx', () => startNginx(upstream, nginxPort));
  const nginxUrl = `http://127.0.0.1:${nginxPort}/`;
  chp = await step('starting configurable-http-proxy and adding the route', () => startChp(upstream, chpPort));
  const chpUrl = `http://127.0.0.1:${chpPort}/`;
  dataplane = await step('starting the data plane (haproxy) and setting the route', () =>
    startBenchDataplane({ sessionId: session, copyId: view.copyId!, target: at }),
  );
  const viewer = dataplane.headers;
  await step('warming the data plane', () => load(dataplane!.url, viewer));
  // Warm every path once, then measure each in turn.
  for (const url of [direct, kit.proxyUrl, chpUrl, ...(nginx ? [nginxUrl] : [])]) await step(`warming ${url}`, () => load(url));
  const d = await step('load, direct', () => load(direct));
  const n = nginx ? await step('load, nginx', () => load(nginxUrl)) : null;
  const c = await step('load, configurable-http-proxy', () => load(chpUrl));
  const p = await step("load, the room's proxy", () => load(kit.proxyUrl));
  const pairs: { n: Load | null; h: Load }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const nRound = nginx ? await step(`load, nginx (round ${i + 1})`, () => load(nginxUrl)) : null;
    const hRound = await step(`load, the data plane (haproxy, token checked; round ${i + 1})`, () => load(dataplane!.url, viewer));
    pairs.push({ n: nRound, h: hRound });
  }
  const byRatio = [...pairs].sort((a, b) => (a.n ? a.h.rps / a.n.rps : a.h.rps) - (b.n ? b.h.rps / b.n.rps : b.h.rps));
  const middle = byRatio[Math.floor(byRatio.length / 2)];
  const h = middle.h;
  const wsDirect = await step('WebSocket echo, direct', () => wsEchoRate(upstream, {}, SECONDS));
  const wsData = await step('WebSocket echo, the data plane', () => wsEchoRate(`127.0.0.1:${dataplane!.port}`, viewer, SECONDS));
  const line = (name: string, r: Load) =>
    console.log(
      `${name.padEnd(25)} ${r.rps.toFixed(0)} req/s (p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, errors ${r.errors})`,
    );
  console.log(`load generator: ${load === loadWithWrk ? 'wrk -t1 -c32' : 'bench/load.ts, 32 connections'}, ${SECONDS} s each`);
  line('direct to the copy:', d);
  if (n) line('nginx proxy_pass:', n);
  else console.log('nginx proxy_pass:   not measured: nginx is not installed (apt-get install nginx)');
  line('configurable-http-proxy:', c);
  line("the room's proxy:", p);
  line('data plane (haproxy):', h);
  console.log(
    `ratio proxy / direct: ${(p.rps / d.rps).toFixed(2)}x of the requests per second; added p50 ${(p.p50 - d.p50).toFixed(2)} ms`,
  );
  if (n)
    console.log(
      `ratio proxy / nginx:  ${(p.rps / n.rps).toFixed(2)}x of nginx's requests per second (target 0.8); nginx added p50 ${(n.p50 - d.p50).toFixed(2)} ms`,
    );
  console.log(
    `ratio proxy / CHP:    ${(p.rps / c.rps).toFixed(2)}x of configurable-http-proxy's requests per second; CHP added p50 ${(c.p50 - d.p50).toFixed(2)} ms`,
  );
  console.log(
    `ratio data plane / direct: ${(h.rps / d.rps).toFixed(2)}x of the requests per second; added p50 ${(h.p50 - d.p50).toFixed(2)} ms (target < 0.5)`,
  );
  for (const [i, pair] of pairs.entries())
    console.log(
      `round ${i + 1}: data plane ${pair.h.rps.toFixed(0)} req/s (p50 ${pair.h.p50.toFixed(2)} ms)` +
        (pair.n ? `, nginx ${pair.n.rps.toFixed(0)} (p50 ${pair.n.p50.toFixed(2)} ms): ${(pair.h.rps / pair.n.rps).toFixed(2)}x` : ''),
    );
  if (middle.n)
    console.log(
      `ratio data plane / nginx:  ${(h.rps / middle.n.rps).toFixed(2)}x (median round) of nginx's requests per second (target 0.9); data plane p50 ${(h.p50 - middle.n.p50).toFixed(2)} ms over nginx's`,
    );
  console.log(
    `WebSocket echo (one socket, one message in flight, ${SECONDS} s): direct ${wsDirect.toFixed(0)}/s, data plane ${wsData.toFixed(0)}/s: ${(wsData / wsDirect).toFixed(2)}x`,
  );
  figure({ name: 'direct to the copy', value: d.rps, unit: 'req/s' });
  figure({ name: 'data plane (haproxy)', value: h.rps, unit: 'req/s', baseline: d.rps });
  if (middle.n) figure({ name: 'data plane (haproxy) / nginx', value: h.rps, unit: 'req/s', baseline: middle.n.rps });
  figure({ name: 'WebSocket echo, data plane', value: wsData, unit: 'msg/s', baseline: wsDirect });
  if (n) figure({ name: 'nginx proxy_pass', value: n.rps, unit: 'req/s', baseline: d.rps });
  figure({ name: 'configurable-http-proxy', value: c.rps, unit: 'req/s', baseline: d.rps });
  figure({ name: "the room's proxy", value: p.rps, unit: 'req/s', baseline: d.rps });
  figure({ name: "the room's proxy / configurable-http-proxy", value: p.rps, unit: 'req/s', baseline: c.rps });
  if (n) figure({ name: "the room's proxy / nginx", value: p.rps, unit: 'req/s', baseline: n.rps });
  await kit.runner.client.leave(session);
} finally {
  await nginx?.stop();
  await chp?.stop();
  await dataplane?.stop();
  await kit.close();
}
