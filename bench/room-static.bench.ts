// Static room content through the content origin (grant cookie checked, session standing cached,
// files from the object store kept in memory) against nginx serving the same files from disk,
// both single-process, measured by the same load generator in its own process.
// Needs the test services (`node infra/local/test.mjs --services`) and nginx (`apt-get install nginx-light`).
//   npx tsx bench/room-static.bench.ts
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { startPlatform } from '../test/support/platform.js';
import { deployStaticRoom, enterRoom } from '../test/support/room.js';
import { figure } from './report.js';

const run = promisify(execFile);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = 32;

// A typical small site: a page, its script and style, an image.
const files: Record<string, Buffer> = {
  'index.html': Buffer.from(`<!doctype html><title>Bench</title>${'<p>Lorem ipsum dolor sit amet.</p>'.repeat(150)}`),
  'assets/app.js': Buffer.from(`console.log(1);${'/* script */ let x = 1;'.repeat(4000)}`),
  'assets/style.css': Buffer.from(`${'body { margin: 0; color: #123; }\n'.repeat(600)}`),
  'assets/logo.png': randomBytes(30_000),
};
const paths = ['/', '/assets/app.js', '/assets/style.css', '/assets/logo.png'];

async function load(url: string, headers: Record<string, string>) {
  const plan = JSON.stringify({ url, paths, concurrency: CONCURRENCY, seconds: SECONDS, headers });
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bench/load.ts', plan], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim()) as {
    rps: number;
    bytesPerRequest: number;
    p50: number;
    p99: number;
    errors: number;
    statusOther: number;
  };
}

async function startNginx(root: string, port: number) {
  const prefix = await mkdtemp(join(tmpdir(), 'nginx-bench-'));
  const conf = `worker_processes 1; error_log ${prefix}/error.log; pid ${prefix}/nginx.pid; daemon off; user root;
events { worker_connections 1024; }
http { include /etc/nginx/mime.types; access_log off; sendfile on; tcp_nopush on; keepalive_requests 100000; etag on;
  server { listen 127.0.0.1:${port}; root ${root}; index index.html; } }`;
  await writeFile(join(prefix, 'nginx.conf'), conf);
  const nginx = spawn('nginx', ['-p', prefix, '-c', join(prefix, 'nginx.conf')], { stdio: 'inherit' });
  await new Promise((r) => setTimeout(r, 500));
  return {
    stop: async () => {
      nginx.kill('SIGQUIT');
      await rm(prefix, { recursive: true, force: true });
    },
  };
}

const platform = await startPlatform({ workers: true });
const root = await mkdtemp(join(tmpdir(), 'static-bench-'));
try {
  for (const [path, bytes] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), bytes);
  }
  const person = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, person, {
    files,
    manifest: { kind: 'static', name: 'Bench', output: 'dist', apps: [{ id: 'web', name: 'Web', path: '/', device: 'none' }] },
  });
  const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Bench' } });
  const viewer = await enterRoom(platform, url);
  const cookie = [...viewer.contentJar].map(([k, v]) => `${k}=${v}`).join('; ');

  const nginxPort = 19_000 + Math.floor(Math.random() * 1000);
  const nginx = await startNginx(root, nginxPort);
  try {
    await load(`http://127.0.0.1:${nginxPort}`, {}); // warm both, then measure
    await load(platform.baseUrl, { host: viewer.host, cookie });
    const base = await load(`http://127.0.0.1:${nginxPort}`, {});
    const room = await load(platform.baseUrl, { host: viewer.host, cookie });
    console.log(
      `nginx:        ${base.rps.toFixed(0)} req/s (${base.bytesPerRequest} B each), p50 ${base.p50.toFixed(2)} ms, p99 ${base.p99.toFixed(2)} ms, errors ${base.errors + base.statusOther}`,
    );
    console.log(
      `room content: ${room.rps.toFixed(0)} req/s (${room.bytesPerRequest} B each), p50 ${room.p50.toFixed(2)} ms, p99 ${room.p99.toFixed(2)} ms, errors ${room.errors + room.statusOther}`,
    );
    console.log(`ratio (room / nginx requests per second): ${(room.rps / base.rps).toFixed(2)}`);
    figure({ name: 'room content', value: room.rps, unit: 'req/s', baseline: base.rps });
  } finally {
    await nginx.stop();
  }
} finally {
  await rm(root, { recursive: true, force: true });
  await platform.close();
}
