// `npm test [-- vitest args]`: vitest against real components, apart from the dev data. The unit
// lane alone (`--project unit`, npm run test:unit) starts none.
// Components live under <data>/test, or are shared with a running `npm start` (then the tests
// get their own database `rooms_test`, Redis db 1 and bucket `rooms-test`). The database, db
// and bucket are emptied on every run. Exits with vitest's code.
//
// `node infra/local/test.mjs --services` starts the same and waits, so `npx vitest` can run by
// hand in another terminal (test/support/services.ts reads <data>/test/test-env.json).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureBaseImage } from './base-image.mjs';
import { startComponents } from './components.mjs';
import { logger, repoRoot, seconds } from './lib.mjs';
import { runOnNode24 } from './node24.mjs';
import { ensureWebApp } from './web-app.mjs';
import { ensureRoomScripts } from './room-scripts.mjs';
import { ensureNodeModules, exitCode, runMigrations } from './platform.mjs';
import { containersConf } from './podman.mjs';
import { ensureDatabase, withDatabase } from './postgres.mjs';
import { flushRedisDb } from './redis.mjs';
import { freshBucket } from './s3.mjs';
import { ensureSecrets } from './secrets.mjs';
import { ensureSystemPackages } from './packages.mjs';

const TEST_DATABASE = 'rooms_test';
const TEST_REDIS_DB = 1;
const TEST_BUCKET = 'rooms-test';
// What the tests get; test/support/services.ts reads the same names.
const EXPORTED = [
  'NODE_ENV',
  'DATA_DIR',
  'DATABASE_URL',
  'REDIS_URL',
  'S3_ENDPOINT',
  'S3_BUCKET',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'S3_REGION',
  'S3_FORCE_PATH_STYLE',
  'DOCKER_HOST',
  'CONTAINERS_CONF',
  'REGISTRY_URL',
  'REGISTRY_TOKEN_KEY_FILE',
  'REGISTRY_CONFIG',
  'REGISTRY_CACHE_REDIS_URL',
  'SMTP_URL',
  'APP_SECRET',
  'OPS_TOKEN',
  'COPY_TOKEN_KEY',
];

const log = logger('test');
const began = Date.now();
const devDataDir = path.resolve(repoRoot, process.env.DATA_DIR ?? '.data');
const dataDir = path.join(devDataDir, 'test');
const args = process.argv.slice(2);
const servicesOnly = args[0] === '--services';
// `--project unit` (npm run test:unit) alone needs no services: vitest runs straight away; nor
// does `--project kubernetes` (npm run test:kubernetes), whose copies run on the cluster KUBECONFIG names.
const lanes = args.flatMap((arg, i) => (arg.startsWith('--project=') ? [arg.slice(10)] : args[i - 1] === '--project' ? [arg] : []));
const unitOnly = lanes.length > 0 && lanes.every((lane) => lane === 'unit' || lane === 'kubernetes');
let components;
let vitest;

async function main() {
  await ensureNodeModules(log);
  await runOnNode24(repoRoot, { log });
  log(`node ${process.version}`);
  if (unitOnly) return runVitest({ ...process.env, NODE_ENV: 'test' });
  await ensureWebApp(log);
  await ensureRoomScripts(log);
  // The data plane's tests start HAProxy of their own (dataplane.mjs), as `npm start` does.
  await ensureSystemPackages(['dataplane']);
  components = await startComponents({ dataDir, role: 'test', reuseFrom: devDataDir, fast: true });
  const env = {
    ...process.env,
    ...components.env,
    ...ensureSecrets(dataDir, log),
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? containersConf,
  };
  // Copies are reached only through their host's data plane, in the tests as under `npm start`:
  // every test runner starts one (test/support/runner/test-dataplane.ts) with this key, which the
  // room signs its copy tokens with.
  await isolate(env, components.origins);
  const envFile = path.join(dataDir, 'test-env.json');
  const exported = Object.fromEntries(EXPORTED.filter((key) => env[key] !== undefined).map((key) => [key, env[key]]));
  writeFileSync(envFile, JSON.stringify(exported, null, 2) + '\n', { mode: 0o600 });
  env.TEST_ENV_FILE = envFile; // tells test/support/services.ts that the variables are set

  await runMigrations(env, log);
  await ensureBaseImage(env.DOCKER_HOST);
  log(`test services ready in ${seconds(Date.now() - began)}`);

  if (servicesOnly) {
    log(`run \`npx vitest\` in another terminal (it reads ${envFile}); Ctrl-C stops the services`);
    process.on('SIGINT', () => finish(0));
    setInterval(() => {}, 60_000);
    return;
  }
  await runVitest(env);
}

async function runVitest(env) {
  vitest = spawn(path.join(repoRoot, 'node_modules/.bin/vitest'), ['run', ...args], { cwd: repoRoot, env, stdio: 'inherit' });
  await finish(await exitCode(vitest));
}

/** Gives the tests their own database, Redis db and bucket on any component we run. */
async function isolate(env, origins) {
  if (origins.postgres !== 'given') {
    await ensureDatabase(env.DATABASE_URL, TEST_DATABASE, { fresh: true });
    env.DATABASE_URL = withDatabase(env.DATABASE_URL, TEST_DATABASE);
  }
  if (origins.redis !== 'given') {
    await flushRedisDb(env.REDIS_URL, TEST_REDIS_DB);
    env.REDIS_URL = `${env.REDIS_URL}/${TEST_REDIS_DB}`;
  }
  if (origins.s3 !== 'given') {
    await freshBucket(env, TEST_BUCKET);
    env.S3_BUCKET = TEST_BUCKET;
  }
}

let finishing = false;
async function finish(code) {
  if (finishing) return;
  finishing = true;
  await components?.stop();
  process.exit(code);
}

// Ctrl-C reaches vitest directly (it shares our terminal), and it ends the run with its summary;
// forwarding it too would make it a second Ctrl-C, which stops vitest without one.
process.on('SIGINT', () => {});
for (const signal of ['SIGTERM', 'SIGHUP']) {
  process.on(signal, () => (vitest && vitest.exitCode === null ? vitest.kill('SIGTERM') : finish(1)));
}

main().catch(async (error) => {
  log(`failed: ${error.message}`);
  vitest?.kill('SIGTERM');
  await finish(1);
});
