// A 512 MB upload two ways, against a direct PUT of the same bytes to the same object store:
// - direct (issue 32): startUpload with direct: true, the 64 parts of 8 MiB PUT by the CLI's own
//   code (services/cli/deploy-steps/direct-upload.ts, 3 at a time) to the store's presigned URLs,
//   then completeUpload. Target: at least 0.9x the direct PUT's speed, and the api's resident
//   memory (VmRSS, sampled every 50 ms) growing by less than 20 MB meanwhile: it never holds a byte.
//   BENCH_ROUNDS (3, at most) pairs of the baseline PUT and the direct upload in turn; the medians count.
// - through the api (the PUT older clients use), and the api's peak resident memory while it
//   streams (the bytes must never be held whole: target under 150 MB).
// The direct path runs first, so the api PUT's memory does not hide its growth. Copying the file
// with `cp` measured the page cache, not an upload, so it is no longer the baseline.
// Needs the test services: `node infra/local/test.mjs --services` in another terminal, then
// `npx tsx bench/upload.bench.ts`. The api is built (`npm run build`) and run as compiled JavaScript.

import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../services/core/infra/config.js';
import { createSql } from '../services/core/infra/db.js';
import { createStorage } from '../services/core/infra/storage.js';
import { uploadDirect } from '../services/cli/deploy-steps/direct-upload.js';
import { issueToken } from '../services/ops/ops.service.js';
import { testEnv } from '../test/support/services.js';
import { figure, step } from './report.js';

/**
 * Pairs of the baseline PUT and the direct upload (BENCH_ROUNDS, default and most 3): the
 * workspace's uploads not yet built may hold 2 GB, four of 512 MB with the api PUT's.
 */
const ROUNDS = Math.min(3, Number(process.env.BENCH_ROUNDS ?? 3));
/** How long the compiled api may take to answer (s): a loaded machine imports slowly. */
const START_S = Number(process.env.BENCH_START_S ?? 120);

const run = promisify(execFile);
const SIZE = 512 * 1024 * 1024;
const PORT = 18_000 + Math.floor(Math.random() * 1000);

const env = { ...process.env, ...testEnv(), PORT: String(PORT), LOG_LEVEL: 'warn', NODE_ENV: 'production' } as NodeJS.ProcessEnv;
const dir = await mkdtemp(join(tmpdir(), 'upload-bench-'));
const file = join(dir, 'upload.bin');

// Random bytes (repeated 1 MiB blocks), so nothing on the way can compress them away.
const block = randomBytes(1024 * 1024);
await new Promise<void>((resolve, reject) => {
  const out = createWriteStream(file);
  let left = SIZE / block.length;
  const write = () => {
    while (left > 0) {
      left--;
      if (!out.write(block)) return void out.once('drain', write);
    }
    out.end(resolve);
  };
  out.on('error', reject);
  write();
});

// The baseline: the same bytes PUT straight into the same bucket, streamed from the file with
// its length known, as the api does (services/core/infra/storage.ts).
const storage = createStorage(loadConfig(env));
async function directPut(): Promise<number> {
  const directKey = `bench/direct-${Date.now()}`;
  const directStart = performance.now();
  await storage.put(directKey, createReadStream(file), { size: SIZE, contentType: 'application/octet-stream' });
  const ms = performance.now() - directStart;
  await storage.deletePrefix(directKey);
  return ms;
}

// The api runs as production runs it: compiled JavaScript, no TypeScript loader in the process.
await step('compiling the api (npm run build)', () => run('npm', ['run', '-s', 'build']));
const api = spawn(process.execPath, ['dist/services/api/main.js'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
const apiExit = new Promise<never>((_, reject) =>
  api.once('exit', (code, signal) => reject(new Error(`the api exited (${signal ?? code}) before it answered`))),
);
apiExit.catch(() => {}); // only the wait below listens
try {
  await step(`starting the compiled api (deadline ${START_S} s)`, () =>
    Promise.race([waitFor(`http://127.0.0.1:${PORT}/healthz`), apiExit]),
  );
  const sql = createSql(env.DATABASE_URL!, { max: 1 });
  const { token } = await issueToken(sql, `bench-${Date.now()}@example.com`, {});
  await sql.end();
  const call = async (path: string, body: unknown) => {
    const res = await fetch(`http://127.0.0.1:${PORT}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const project = await call('/api/projects', { slug: `bench-${Date.now()}`, name: 'Bench' });

  // Direct: the api signs, the store takes the bytes. ROUNDS pairs of the baseline PUT and the
  // direct upload, one after the other: on a shared 2-core machine the load swings either by 2x
  // within a minute, so one pair says little; the figures are the medians (the ratio's, per pair).
  // The growth counted is each upload's own (its round's peak over the RSS it started from), the
  // largest of the rounds: across rounds the heap also keeps what earlier ones left uncollected.
  const directRssBefore = await rssMb(api.pid!);
  let directRssPeak = directRssBefore;
  let roundRssPeak = directRssBefore;
  let growth = 0;
  const sampler = setInterval(() => {
    rssMb(api.pid!).then(
      (mb) => {
        directRssPeak = Math.max(directRssPeak, mb);
        roundRssPeak = Math.max(roundRssPeak, mb);
      },
      () => {},
    );
  }, 50);
  const rounds: { directMs: number; sentMs: number; partsMs: number; ratio: number }[] = [];
  let partCount = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    const roundDirectMs = await directPut();
    const roundRssBefore = await rssMb(api.pid!);
    roundRssPeak = roundRssBefore;
    const sentStart = performance.now();
    const started = await call(`/api/projects/${project.id}/uploads`, { kind: 'static', sizeBytes: SIZE, direct: true });
    const parts = await uploadDirect({ direct: started.direct, file, onBytes: () => {}, onPart: () => {} });
    const roundPartsMs = performance.now() - sentStart;
    await call(`/api/uploads/${started.uploadId}/complete`, { parts });
    const roundSentMs = performance.now() - sentStart;
    growth = Math.max(growth, Math.max(roundRssPeak, await rssMb(api.pid!)) - roundRssBefore);
    partCount = started.direct.parts.length;
    // The next round's bytes would land beside these: the received upload's object goes now.
    await storage.deletePrefix(`uploads/${started.uploadId}`);
    rounds.push({ directMs: roundDirectMs, sentMs: roundSentMs, partsMs: roundPartsMs, ratio: roundDirectMs / roundSentMs });
    console.log(
      `round ${round}: direct PUT ${roundDirectMs.toFixed(0)} ms, direct upload ${roundSentMs.toFixed(0)} ms (parts ${roundPartsMs.toFixed(0)}, completeUpload ${(roundSentMs - roundPartsMs).toFixed(0)}): ${(roundDirectMs / roundSentMs).toFixed(2)}`,
    );
  }
  clearInterval(sampler);
  directRssPeak = Math.max(directRssPeak, await rssMb(api.pid!));
  const directMs = median(rounds.map((r) => r.directMs));
  const sentMs = median(rounds.map((r) => r.sentMs));
  const partsMs = median(rounds.map((r) => r.partsMs));
  const ratio = median(rounds.map((r) => r.ratio));

  // Through the api.
  const { putUrl } = await call(`/api/projects/${project.id}/uploads`, { kind: 'static', sizeBytes: SIZE });
  const baseRss = await peakRssMbAsync(api.pid!);
  const upStart = performance.now();
  const status = await put(putUrl, token);
  const upMs = performance.now() - upStart;
  if (status !== 204) throw new Error(`PUT answered ${status}`);
  const peak = await peakRssMbAsync(api.pid!);

  const mbps = (ms: number) => (SIZE / 1024 / 1024 / (ms / 1000)).toFixed(0);
  console.log(`medians of ${ROUNDS} rounds:`);
  console.log(`direct PUT of 512 MiB:    ${directMs.toFixed(0)} ms (${mbps(directMs)} MiB/s)`);
  console.log(`direct upload (${partCount} parts): ${sentMs.toFixed(0)} ms (${mbps(sentMs)} MiB/s), start to completeUpload`);
  console.log(`  of which the parts:     ${partsMs.toFixed(0)} ms (${mbps(partsMs)} MiB/s)`);
  console.log(`speed ratio direct upload / direct PUT: ${ratio.toFixed(2)} (median of the rounds' own; target 0.9 or better)`);
  console.log(
    `api RSS growth during one: ${growth.toFixed(1)} MB, the largest round's (all rounds: ${directRssBefore.toFixed(0)} → ${directRssPeak.toFixed(0)} MB; target < 20 MB)`,
  );
  console.log(`upload of 512 MiB (api):  ${upMs.toFixed(0)} ms (${mbps(upMs)} MiB/s)`);
  console.log(`speed ratio api / direct: ${(directMs / upMs).toFixed(2)} (target 0.8 or better)`);
  console.log(`api peak RSS:             ${peak.toFixed(0)} MB (before the upload ${baseRss.toFixed(0)} MB; target < 150 MB)`);
  figure({ name: 'direct upload of 512 MiB (presigned parts)', value: directMs / ratio, unit: 'ms', baseline: directMs });
  figure({ name: 'direct upload: the parts alone', value: partsMs, unit: 'ms', baseline: directMs });
  figure({ name: 'api RSS growth during a direct upload', value: growth, unit: 'MB', baseline: directRssBefore });
  figure({ name: 'upload of 512 MiB through the api', value: upMs, unit: 'ms', baseline: directMs });
  figure({ name: 'api peak RSS during upload', value: peak, unit: 'MB', baseline: baseRss });
} finally {
  api.kill('SIGTERM');
  await rm(dir, { recursive: true, force: true });
}

function put(path: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: PORT,
        path,
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-length': SIZE, 'content-type': 'application/gzip' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    createReadStream(file).pipe(req);
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** VmRSS: the process's resident set now. */
async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** VmHWM: the process's peak resident set, as the kernel counts it. */
async function peakRssMbAsync(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)![1]) / 1024;
}

async function waitFor(url: string) {
  for (let i = 0; i < START_S * 10; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer within ${START_S} s (BENCH_START_S)`);
}
