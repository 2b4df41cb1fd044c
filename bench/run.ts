// `npm run bench [-- name ...]`: runs each bench/<name>.bench.ts in turn (all of them by
// default), each in its own process, and stops at the first that fails. The benches use the test
// services (Postgres, Redis, the S3 store, podman): when none run, this starts them as `npm test`
// does (`node infra/local/test.mjs --services`) and stops them at the end.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const all = readdirSync(new URL('.', import.meta.url)).filter((f) => f.endsWith('.bench.ts')).sort();
const asked = process.argv.slice(2);
const chosen = asked.length ? all.filter((f) => asked.some((a) => f.startsWith(a))) : all;
if (!chosen.length) {
  console.error(`no bench named ${asked.join(', ')}; there are: ${all.map((f) => f.replace('.bench.ts', '')).join(', ')}`);
  process.exit(1);
}

/** Whether the test services a launcher recorded are up (its components file says so, and its owner lives). */
function servicesRunning(): boolean {
  try {
    const state = JSON.parse(readFileSync(`${root}.data/test/components.json`, 'utf8')) as { running?: boolean; owner?: number };
    if (!state.running || !state.owner) return false;
    process.kill(state.owner, 0);
    return true;
  } catch {
    return false;
  }
}

/** Starts the test services and resolves once they are ready. */
function startServices(): Promise<ChildProcess> {
  console.log('starting the test services (node infra/local/test.mjs --services)');
  const child = spawn(process.execPath, ['infra/local/test.mjs', '--services'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (/test services ready/.test(seen)) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`the test services stopped before they were ready (exit ${code})`)));
  });
}

const started = servicesRunning() ? null : await startServices();
let status = 0;
for (const file of chosen) {
  console.log(`\n## ${file.replace('.bench.ts', '')}`);
  status = spawnSync(process.execPath, ['--import', 'tsx', `bench/${file}`], { cwd: root, stdio: 'inherit' }).status ?? 1;
  if (status !== 0) break;
}
if (started) {
  started.kill('SIGINT');
  await new Promise((resolve) => started.once('exit', resolve));
}
process.exit(status);
