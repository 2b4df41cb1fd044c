// `npm start`: the whole platform on this machine, from a fresh clone, in one command.
// Components under .data/ (or as given by URL), migrations, then api, workers and runner as
// children with one combined log, and the data plane (HAProxy) in front of the copies. Ctrl-C or
// SIGTERM stops everything it started.
import path from 'node:path';
import { ensureBaseImage } from './base-image.mjs';
import { claimDataDir, startComponents } from './components.mjs';
import { canListen, isAlive, logger, repoRoot, seconds, terminate, waitUntil } from './lib.mjs';
import { runOnNode24 } from './node24.mjs';
import { ensureWebApp } from './web-app.mjs';
import { ensureRoomScripts } from './room-scripts.mjs';
import { ensureNodeModules, mainFile, printEnv, PROCESSES, runMigrations, spawnTsx } from './platform.mjs';
import { containersConf } from './podman.mjs';
import { DATAPLANE_DEFAULT_PORT, startDataplane } from './dataplane.mjs';
import { ensureSystemPackages } from './packages.mjs';
import { ensureSecrets } from './secrets.mjs';
import { localWebhooks } from './local-webhooks.mjs';

const log = logger('start');
const began = Date.now();
const children = []; // { name, child }
let components;
let dataplane;
let stopping = false;
let stoppingSince = 0;

async function main() {
  // Before anything else: the rest runs on the project's own Node 24.
  await ensureNodeModules(log);
  await runOnNode24(repoRoot, { log });
  log(`node ${process.version}`);
  const dataDir = path.resolve(repoRoot, process.env.DATA_DIR ?? '.data');
  const port = Number(process.env.PORT ?? 8080);
  const runnerPort = Number(process.env.RUNNER_PORT ?? 8081);
  const workersPort = Number(process.env.WORKERS_PORT ?? 8082);
  const dataplanePort = Number(process.env.DATAPLANE_PORT ?? DATAPLANE_DEFAULT_PORT);
  await claimDataDir(dataDir, 'start'); // first: a killed run may have left our api on PORT
  for (const [name, value] of [
    ['PORT', port],
    ['RUNNER_PORT', runnerPort],
    ['WORKERS_PORT', workersPort],
    ['DATAPLANE_PORT', dataplanePort],
  ]) {
    if (!Number.isInteger(value) || value < 1 || value > 65535) throw new Error(`${name} must be a port number`);
    if (!(await canListen(value))) throw new Error(`${name} ${value} is taken (another npm start?); set ${name} to a free port`);
  }

  await ensureWebApp(log);
  await ensureRoomScripts(log);
  components = await startComponents({ dataDir, role: 'start' });
  components.onUnexpectedExit((name, how) => shutdown(1, `${name} exited unexpectedly (${describe(how)}); stopping everything`));
  log(`components ready in ${seconds(Date.now() - began)}`);

  const env = {
    ...process.env,
    ...components.env,
    ...ensureSecrets(dataDir),
    NODE_ENV: process.env.NODE_ENV ?? 'development',
    PORT: String(port),
    PUBLIC_URL: process.env.PUBLIC_URL ?? `http://127.0.0.1:${port}`,
    RUNNER_PORT: String(runnerPort),
    WORKERS_PORT: String(workersPort),
    DATA_DIR: dataDir,
    CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? containersConf,
  };
  // A builder's webhook receiver on this machine (http://127.0.0.1:<port>): local development only.
  const webhooks = localWebhooks(env);
  env.WEBHOOKS_ALLOW_PRIVATE = webhooks.value;
  printEnv(env, [
    'DATABASE_URL',
    'REDIS_URL',
    'S3_ENDPOINT',
    'S3_BUCKET',
    'DOCKER_HOST',
    'REGISTRY_URL',
    'SMTP_URL',
    'PUBLIC_URL',
    'RUNNER_PORT',
    'WORKERS_PORT',
    'DATA_DIR',
  ]);
  if (!env.SMTP_URL) log(`no SMTP_URL: mail goes to the log and ${path.join(dataDir, 'outbox')}/`);
  log(webhooks.line);

  // The data plane before the runner, which sets its routes (docs/runner.md, "Data plane"). The
  // copy origins are served through it: what it does not carry straight to a copy it passes to the room.
  await ensureSystemPackages(['dataplane']);
  dataplane = await startDataplane({
    dir: path.join(dataDir, 'dataplane'),
    port: dataplanePort,
    room: `127.0.0.1:${port}`,
    frameAncestors: new URL(env.PUBLIC_URL).origin,
    tokenKey: env.COPY_TOKEN_KEY,
    // The room's hops (every page load of a copy) come from 127.0.0.1: the per-source cap is not
    // theirs (docs/runner.md, "Limits"). Local viewers share that address, so here it is off for them too.
    ...(process.env.DATAPLANE_UNCAPPED_SOURCES ? {} : { limits: { uncappedSources: ['127.0.0.1'] } }),
  });
  env.DATAPLANE_ADMIN_SOCKET = dataplane.adminSocket;
  env.DATAPLANE_ROUTES_MAP = dataplane.routesMap;
  env.CONTENT_ORIGIN = process.env.CONTENT_ORIGIN ?? `http://{slug}.rooms.localhost:${dataplanePort}`;
  // The room reaches every copy through it, page loads included (docs/runner.md, "One way to a copy").
  env.RUNNER_COPY_ORIGIN = process.env.RUNNER_COPY_ORIGIN ?? `http://127.0.0.1:${dataplanePort}`;
  log(`content origins through the data plane: ${env.CONTENT_ORIGIN}`);

  await ensureBaseImage(env.DOCKER_HOST);
  await runMigrations(env, log);

  for (const spec of PROCESSES) {
    const file = mainFile(spec, log);
    if (file) supervise(spec.name, file, env);
  }

  if (!children.some(({ name }) => name === 'api')) {
    log('the api is not started, so there is nothing to be ready; components stay up until Ctrl-C');
    setInterval(() => {}, 60_000); // keeps us up even when every component is given by URL
    return;
  }
  const health = `http://127.0.0.1:${port}/healthz`;
  await waitUntil(`${health} to answer 200`, async () => (await fetch(health, { signal: AbortSignal.timeout(2_000) })).status === 200, {
    timeoutMs: 120_000,
    intervalMs: 200,
  });
  log(`up in ${seconds(Date.now() - began)}`);
  process.stdout.write(`ready http://127.0.0.1:${port}\n`);
}

/**
 * Runs one of the platform's processes and starts it again when it dies, as compose or Kubernetes
 * would (a process exits 1 on purpose after some faults, e.g. a Postgres restart: see README,
 * Faults). Backs off 1, 2, 4… up to 30 s; five crashes within a minute stop everything instead.
 */
function supervise(name, file, env) {
  const crashes = [];
  const start = () => {
    const child = spawnTsx(name, file, env);
    const entry = children.find((c) => c.name === name);
    if (entry) entry.child = child;
    else children.push({ name, child });
    components.recordProcesses(Object.fromEntries(children.map((c) => [c.name, c.child.pid])));
    child.on('exit', (code, signal) => {
      if (stopping) return;
      const now = Date.now();
      crashes.push(now);
      while (crashes.length && now - crashes[0] > 60_000) crashes.shift();
      if (crashes.length >= 5)
        return void shutdown(
          1,
          `${name} exited ${crashes.length} times in a minute (last: ${describe({ code, signal })}); stopping everything`,
        );
      const wait = Math.min(30_000, 1000 * 2 ** (crashes.length - 1));
      log(`${name} exited unexpectedly (${describe({ code, signal })}); starting it again in ${seconds(wait)}`);
      setTimeout(() => {
        if (!stopping) start();
      }, wait).unref();
    });
  };
  start();
}

async function shutdown(code, reason) {
  // npm relays the terminal's Ctrl-C, so one press arrives twice: only a later one forces.
  if (stopping && Date.now() - stoppingSince < 1_000) return;
  if (stopping) {
    log('second signal: killing the platform processes now');
    for (const { child } of children) if (isAlive(child.pid)) process.kill(-child.pid, 'SIGKILL');
    return;
  }
  stopping = true;
  stoppingSince = Date.now();
  // Each process finishes its requests or jobs within SHUTDOWN_SECONDS (30 by default), then
  // cuts what is left; the launcher waits that long and a little more before it kills.
  const patienceMs = (Number(process.env.SHUTDOWN_SECONDS ?? 30) + 15) * 1000;
  log(reason);
  // The platform first, while the components it closes connections to are still up.
  await Promise.all(
    children.map(async ({ name, child }) => {
      const how = await terminate(child.pid, { group: true, timeoutMs: patienceMs });
      if (how === 'killed') log(`${name} did not stop within ${seconds(patienceMs)} of SIGTERM and was killed`);
    }),
  );
  await dataplane?.stop();
  await components?.stop();
  log('stopped');
  process.exit(code);
}

const describe = ({ code, signal }) => (signal ? `signal ${signal}` : code === null ? 'it is gone' : `exit code ${code}`);

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => shutdown(0, `${signal}: stopping`));
}

main().catch((error) => shutdown(1, `failed: ${error.message}`));
