// `npm run bench [-- name ...] [-- --json]`: runs each bench/<name>.bench.ts in turn (all of them
// by default), each in its own process. A bench that fails does not stop the others: its failure
// is reported, the next one runs, and the run exits non-zero at the end with a summary of which
// failed and why. The benches use the test services (Postgres, Redis, the S3 store, podman): when
// none run, this starts them as `npm test` does (`node infra/local/test.mjs --services`) and stops
// them at the end.
//   --json   one JSON line per figure on stdout (bench, name, value, unit, baseline, ratio,
//            loadavg); the benches' own lines go to stderr. `npm run -s bench -- --json > a.jsonl`,
//            then `npx tsx bench/compare.ts a.jsonl b.jsonl` (docs/benchmarks.md).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** How long one bench may run (s). */
const DEADLINE_S = Number(process.env.BENCH_DEADLINE_S ?? 1200);
const root = fileURLToPath(new URL('..', import.meta.url));
const all = readdirSync(new URL('.', import.meta.url))
  .filter((f) => f.endsWith('.bench.ts'))
  .sort();
const args = process.argv.slice(2);
const json = args.includes('--json');
const asked = args.filter((a) => !a.startsWith('--'));
const chosen = asked.length ? all.filter((f) => asked.some((a) => f.startsWith(a))) : all;
// With --json, stdout carries only the figures.
const say = (line: string) => (json ? process.stderr : process.stdout).write(`${line}\n`);
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
  say('starting the test services (node infra/local/test.mjs --services)');
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

/** Runs one bench in its own process; resolves with its exit status and the last lines of its errors. */
function runBench(file: string, figures: string): Promise<{ status: number; why: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `bench/${file}`], {
      cwd: root,
      env: { ...process.env, ...(json ? { BENCH_FIGURES: figures } : {}) },
      stdio: ['ignore', json ? process.stderr : 'inherit', 'pipe'],
    });
    let errors = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      errors = (errors + chunk.toString()).slice(-20_000);
      process.stderr.write(chunk);
    });
    // A bench that outlives its deadline (one that hangs after its figures, say) is stopped, and
    // the summary says so.
    let late = false;
    const deadline = setTimeout(() => {
      late = true;
      child.kill('SIGTERM');
    }, DEADLINE_S * 1000);
    child.on('exit', (code, signal) => {
      clearTimeout(deadline);
      resolve({
        status: code ?? 1,
        why: late
          ? `stopped: it passed the ${DEADLINE_S} s deadline (BENCH_DEADLINE_S)`
          : signal
            ? `killed by ${signal}`
            : reasonOf(errors),
      });
    });
  });
}

/** The line that says why a bench failed: a bench step's message, else the first error line. */
function reasonOf(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.find((l) => l.includes('bench step "')) ?? lines.find((l) => /^\w*Error\b|^Error:/.test(l)) ?? lines.at(-1) ?? 'no message';
}

const started = servicesRunning() ? null : await startServices();
const figuresDir = mkdtempSync(join(tmpdir(), 'bench-figures-'));
const results: { name: string; status: number; why: string; seconds: number }[] = [];
for (const file of chosen) {
  const name = file.replace('.bench.ts', '');
  say(`\n## ${name}`);
  const figures = join(figuresDir, `${name}.jsonl`);
  const t0 = performance.now();
  const { status, why } = await runBench(file, figures);
  results.push({ name, status, why, seconds: (performance.now() - t0) / 1000 });
  if (json) {
    try {
      process.stdout.write(readFileSync(figures, 'utf8'));
    } catch {
      // A bench that failed before its first figure wrote none.
    }
  }
}
rmSync(figuresDir, { recursive: true, force: true });
if (started) {
  started.kill('SIGINT');
  await new Promise((resolve) => started.once('exit', resolve));
}
say('\n## summary');
for (const r of results)
  say(
    `${r.status === 0 ? 'ok    ' : 'FAILED'} ${r.name.padEnd(22)} ${r.seconds.toFixed(0).padStart(4)} s${r.status === 0 ? '' : `  ${r.why}`}`,
  );
const failed = results.filter((r) => r.status !== 0);
say(failed.length ? `${failed.length} of ${results.length} benches failed` : `all ${results.length} benches passed`);
process.exit(failed.length ? 1 : 0);
