// `pitch deploy` of a 50 MB static site against `curl -T` of the same archive to a putUrl of the
// same platform: the tool's whole run (start, manifest, two secret scans, pack, upload with its
// progress bar, createBuild waiting for the unpack, makeLive) as a ratio of the bare upload.
// Needs the test services (`node infra/local/test.mjs --services`), then:
//   npx tsx bench/cli-deploy.bench.ts
//
// The site: index.html, 200 pages and 8 JS bundles of text that gzips about 4:1 (about 10 MB),
// and 40 MB of images (random bytes, as JPEG and WebP are: they do not gzip). Median of 3 runs
// each (BENCH_RUNS to change it), taken in turns so both see the same machine.
//
// Two settings: the loopback interface, where the upload takes a fraction of a second and fixed
// costs dominate, and a proxy holding both clients to 10 MB/s (80 Mbit/s, a good office uplink),
// closer to where builders deploy from. A third figure splits the platform's share out: createBuild
// of curl's upload (the platform unpacking and storing every file), which `pitch deploy` waits for
// and `curl -T` does not.

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packStaticSite } from '../services/cli/deploy-steps/pack-static.js';
import { startPlatform } from '../test/support/platform.js';
import { pitchDeploy } from './pitch-deploy.js';
import { figure } from './report.js';

const run = promisify(execFile);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const MB = 1_000_000;
const THROTTLE_BYTES_PER_S = 10 * MB;

const platform = await startPlatform({ workers: true });
const builder = await platform.person({ plan: 'enterprise' });
const work = await mkdtemp(join(tmpdir(), 'cli-deploy-bench-'));
const site = join(work, 'site');

/** Text of words from a small vocabulary: gzips about 4:1, as minified code and markup do. */
function text(bytes: number): string {
  const words = Array.from({ length: 2000 }, () => randomBytes(3 + (randomBytes(1)[0] % 6)).toString('base64url'));
  const parts: string[] = [];
  let size = 0;
  while (size < bytes) {
    const word = words[randomBytes(2).readUInt16BE() % words.length];
    parts.push(word);
    size += word.length + 1;
  }
  return parts.join(' ');
}

async function makeSite(): Promise<void> {
  await mkdir(join(site, 'public', 'pages'), { recursive: true });
  await mkdir(join(site, 'public', 'assets', 'img'), { recursive: true });
  await writeFile(
    join(site, 'pitch.json'),
    JSON.stringify({
      kind: 'static',
      name: 'Bench site',
      output: 'public',
      apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' }],
    }),
  );
  await writeFile(join(site, 'public', 'index.html'), `<!doctype html><title>Bench</title>${text(20_000)}`);
  for (let i = 0; i < 200; i++)
    await writeFile(join(site, 'public', 'pages', `page-${i}.html`), `<!doctype html><title>Page ${i}</title>${text(5_000)}`);
  for (let i = 0; i < 8; i++) await writeFile(join(site, 'public', 'assets', `bundle-${i}.js`), text(1.1 * MB));
  for (let i = 0; i < 160; i++)
    await writeFile(join(site, 'public', 'assets', 'img', `photo-${i}.${i % 2 ? 'jpg' : 'webp'}`), randomBytes(250_000));
}

/** A proxy that passes requests to the platform, holding request bodies to a steady rate. */
async function throttlingProxy(target: string, bytesPerSecond: number): Promise<{ url: string; server: Server }> {
  const to = new URL(target);
  const server = createServer((req, res) => {
    const upstream = request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers }, (reply) => {
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(res);
    });
    const started = performance.now();
    let sent = 0;
    req.on('data', (chunk: Buffer) => {
      sent += chunk.length;
      upstream.write(chunk);
      const ahead = (sent / bytesPerSecond) * 1000 - (performance.now() - started);
      if (ahead > 0) {
        req.pause();
        setTimeout(() => req.resume(), ahead);
      }
    });
    req.on('end', () => upstream.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

// --force: every run deploys the same site, which would otherwise stop at "nothing changed".
const deploySite = (api: string, slug: string) =>
  pitchDeploy([site, '--project', slug, '--force'], { PITCH_API: api, PP_TOKEN: builder.token, XDG_CONFIG_HOME: join(work, 'config') });

const manifest = {
  kind: 'static' as const,
  name: 'Bench site',
  output: 'public',
  apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' as const }],
};

/** curl -T of the archive to a fresh putUrl; then createBuild of that upload, timed apart. */
async function curlUpload(api: string, projectId: string, archive: string, size: number): Promise<{ ms: number; buildMs: number }> {
  const { uploadId, putUrl } = await builder.client.call('startUpload', {
    params: { projectId },
    body: { kind: 'static', sizeBytes: size },
  });
  const started = performance.now();
  const { stdout } = await run('curl', [
    '-sS',
    '-o',
    '/dev/null',
    '-w',
    '%{http_code}',
    '-T',
    archive,
    '-H',
    `Authorization: Bearer ${builder.token}`,
    '-H',
    'Content-Type: application/gzip',
    `${api}${putUrl}`,
  ]);
  const ms = performance.now() - started;
  if (stdout !== '204') throw new Error(`curl -T answered ${stdout}`);
  const building = performance.now();
  await builder.client.call('createBuild', { params: { projectId }, body: { uploadId, manifest } });
  return { ms, buildMs: performance.now() - building };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function measure(label: string, api: string): Promise<void> {
  const slug = `bench-${label.replace(/[^a-z0-9]+/g, '-')}-${randomBytes(4).toString('hex')}`;
  const project = await builder.client.call('createProject', { body: { slug, name: 'Bench site' } });
  // The archive pitch uploads, made by the same code, for curl to send the same bytes.
  const archive = join(work, 'site.tar.gz');
  const packed = await packStaticSite(join(site, 'public'), archive);
  const deploys: number[] = [];
  const curls: number[] = [];
  const builds: number[] = [];
  let lastStderr = '';
  for (let i = 0; i < RUNS; i++) {
    const curled = await curlUpload(api, project.id, archive, packed.sizeBytes);
    curls.push(curled.ms);
    builds.push(curled.buildMs);
    const deployed = await deploySite(api, slug);
    deploys.push(deployed.ms);
    lastStderr = deployed.stderr;
  }
  const d = median(deploys);
  const c = median(curls);
  const b = median(builds);
  const runs = (values: number[]) => values.map((ms) => ms.toFixed(0)).join(', ');
  console.log(
    `\n${label}: site ${(packed.contentBytes / MB).toFixed(1)} MB in ${packed.files} files, archive ${(packed.sizeBytes / MB).toFixed(1)} MB`,
  );
  console.log(`  curl -T of the archive:          ${c.toFixed(0)} ms (runs ${runs(curls)})`);
  console.log(`  createBuild of curl's upload:    ${b.toFixed(0)} ms (runs ${runs(builds)}): the platform's own share`);
  console.log(`  pitch deploy:                    ${d.toFixed(0)} ms (runs ${runs(deploys)})`);
  console.log(`  ratio pitch / curl -T:           ${(d / c).toFixed(2)}x (target 1.5x)`);
  console.log(`  ratio pitch / (curl + build):    ${(d / (c + b)).toFixed(2)}x: the tool's own overhead`);
  figure({ name: `pitch deploy (${label})`, value: d, unit: 'ms', baseline: c });
  console.log(
    `  last deploy's progress:\n${lastStderr
      .trimEnd()
      .split('\n')
      .map((line) => `    ${line}`)
      .join('\n')}`,
  );
}

try {
  await makeSite();
  await measure('loopback', platform.baseUrl);
  const proxy = await throttlingProxy(platform.baseUrl, THROTTLE_BYTES_PER_S);
  try {
    await measure(`uplink ${THROTTLE_BYTES_PER_S / MB} MB/s`, proxy.url);
  } finally {
    proxy.server.closeAllConnections();
    proxy.server.close();
  }
} finally {
  await rm(work, { recursive: true, force: true });
  await platform.close();
}
