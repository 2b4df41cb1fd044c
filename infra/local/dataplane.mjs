// The data plane of this host (issue 31; docs/runner.md, "Data plane"): HAProxy 2.6 from Debian,
// its config rendered from infra/dataplane/haproxy.cfg.tmpl into the data dir, an admin socket the
// runner changes routes through, a routes map file the runner rewrites at its start. Node
// builtins only: start.mjs runs it before `npm ci`.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isAlive, logger, pipeLines, repoRoot, terminate, waitUntil, which } from './lib.mjs';

const log = logger('dplane');

export const DATAPLANE_DEFAULT_PORT = 8084;

/**
 * What one viewer may hold of the data plane (docs/runner.md, "Data plane", "Limits"; security-4.md
 * H2), each from its DATAPLANE_* variable; services/core/infra/config.ts documents the same defaults.
 */
export const DATAPLANE_LIMIT_DEFAULTS = {
  /** DATAPLANE_MAX_CONN_PER_SOURCE: connections one address holds open, idle ones included. */
  maxConnPerSource: 200,
  /** DATAPLANE_MAX_CONN_PER_COPY: requests in flight and open WebSockets to one copy. */
  maxConnPerCopy: 64,
  /** DATAPLANE_COPY_REQUESTS_PER_10S: requests to one copy in any 10 s. */
  copyRequestsPer10s: 2000,
  /** DATAPLANE_TUNNEL_IDLE_S: a WebSocket silent both ways this long is closed (seconds). */
  tunnelIdleS: 300,
  /** DATAPLANE_UNCAPPED_SOURCES: addresses or CIDR ranges, comma-separated, the per-source cap does not count (the room's, a load balancer's). */
  uncappedSources: [],
};

const LIMIT_VARIABLES = {
  maxConnPerSource: 'DATAPLANE_MAX_CONN_PER_SOURCE',
  maxConnPerCopy: 'DATAPLANE_MAX_CONN_PER_COPY',
  copyRequestsPer10s: 'DATAPLANE_COPY_REQUESTS_PER_10S',
  tunnelIdleS: 'DATAPLANE_TUNNEL_IDLE_S',
};
const ADDRESS = /^[0-9a-f:.]+(\/\d{1,3})?$/i;

/** The limits from the environment, each variable unset taking its default. */
export function dataplaneLimits(env = process.env) {
  const limits = { ...DATAPLANE_LIMIT_DEFAULTS };
  for (const [name, variable] of Object.entries(LIMIT_VARIABLES)) {
    if (env[variable] === undefined || env[variable] === '') continue;
    const value = Number(env[variable]);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${variable} must be a whole number of at least 1`);
    limits[name] = value;
  }
  if (env.DATAPLANE_UNCAPPED_SOURCES)
    limits.uncappedSources = env.DATAPLANE_UNCAPPED_SOURCES.split(',')
      .map((a) => a.trim())
      .filter(Boolean);
  return limits;
}

/** Where the data plane of `dir` keeps its files. */
export function dataplanePaths(dir) {
  return {
    dir,
    config: path.join(dir, 'haproxy.cfg'),
    adminSocket: path.join(dir, 'admin.sock'),
    routesMap: path.join(dir, 'routes.map'),
    uncappedSources: path.join(dir, 'uncapped-sources.lst'),
    pidFile: path.join(dir, 'haproxy.pid'),
  };
}

/**
 * The config for one host. `room` is the room's host:port (requests the data plane does not take
 * go there); `frameAncestors` the room's origin; `tokenKey` the copy-token key (COPY_TOKEN_KEY,
 * hex), written into the file, which is the owner's alone.
 */
export function renderDataplaneConfig({ dir, port, bind = '127.0.0.1', room, frameAncestors, tokenKey, threads = 1, limits = {}, runAs }) {
  if (!/^[0-9a-f]{32,}$/i.test(tokenKey ?? '')) throw new Error('the data plane needs COPY_TOKEN_KEY (hex, 32+ characters)');
  const paths = dataplanePaths(dir);
  const limit = { ...dataplaneLimits(), ...limits };
  for (const address of limit.uncappedSources)
    if (!ADDRESS.test(address)) throw new Error(`DATAPLANE_UNCAPPED_SOURCES: ${address} is not an address or CIDR range`);
  const values = {
    ADMIN_SOCKET: paths.adminSocket,
    PID_FILE: paths.pidFile,
    ROUTES_MAP: paths.routesMap,
    BIND: bind,
    PORT: String(port),
    ROOM: room,
    FRAME_ANCESTORS: frameAncestors,
    TOKEN_KEY: tokenKey,
    THREADS: String(threads),
    MAX_CONN_PER_SOURCE: String(limit.maxConnPerSource),
    MAX_CONN_PER_COPY: String(limit.maxConnPerCopy),
    COPY_REQUESTS_PER_10S: String(limit.copyRequestsPer10s),
    TUNNEL_IDLE_S: String(limit.tunnelIdleS),
    UNCAPPED_SOURCES: paths.uncappedSources,
  };
  for (const [name, value] of Object.entries(values))
    if (/["\s]/.test(value)) throw new Error(`data plane ${name} may hold no space or quote`);
  const template = readFileSync(path.join(repoRoot, 'infra/dataplane/haproxy.cfg.tmpl'), 'utf8');
  let config = template.replace(/\{\{([A-Z0-9_]+)\}\}/g, (_, name) => {
    if (!(name in values)) throw new Error(`haproxy.cfg.tmpl names {{${name}}}, which nothing fills`);
    return values[name];
  });
  // Started as root, it reads its files and binds, then runs as this uid (and its gid).
  if (runAs !== undefined) {
    if (!Number.isInteger(runAs) || runAs < 1) throw new Error('the data plane runs as a uid of at least 1');
    config = config.replace(/^global\n/m, `global\n    uid ${runAs}\n    gid ${runAs}\n`);
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(paths.config, config, { mode: 0o600 });
  chmodSync(paths.config, 0o600);
  if (!existsSync(paths.routesMap)) writeFileSync(paths.routesMap, '', { mode: 0o600 });
  writeFileSync(paths.uncappedSources, limit.uncappedSources.map((a) => `${a}\n`).join(''), { mode: 0o600 });
  return paths;
}

/** One command on the admin socket; its answer. */
export function adminCommand(socketPath, command, timeoutMs = 2_000) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let answer = '';
    const timer = setTimeout(() => socket.destroy(new Error(`no answer from ${socketPath} in ${timeoutMs} ms`)), timeoutMs);
    socket.on('connect', () => socket.end(`${command}\n`));
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
  });
}

/**
 * Renders and starts HAProxy in the foreground; resolves once its admin socket answers. HAProxy
 * never outlives the process that started it: it runs under `setpriv --pdeathsig` (the kernel kills
 * it when its parent dies, even by SIGKILL or a timed-out hook) and is killed on this process's exit.
 */
export async function startDataplane(options) {
  const haproxy = which('haproxy');
  if (!haproxy) throw new Error('haproxy is not installed (apt-get install haproxy)');
  const paths = renderDataplaneConfig(options);
  const check = spawn(haproxy, ['-c', '-q', '-f', paths.config], { stdio: ['ignore', 'pipe', 'pipe'] });
  pipeLines(check.stderr, 'dplane');
  const checked = await new Promise((resolve) => check.on('exit', resolve));
  if (checked !== 0) throw new Error(`haproxy refused ${paths.config} (see the dplane lines above)`);
  const setpriv = which('setpriv');
  const [command, args] = setpriv
    ? [setpriv, ['--pdeathsig', 'SIGKILL', haproxy, '-db', '-f', paths.config]]
    : [haproxy, ['-db', '-f', paths.config]];
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  pipeLines(child.stdout, 'dplane');
  pipeLines(child.stderr, 'dplane');
  const killOnExit = () => {
    try {
      child.kill('SIGKILL');
    } catch {}
  };
  process.once('exit', killOnExit);
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  try {
    await waitUntil(
      'the data plane (haproxy) to answer on its admin socket',
      async () => /Name: HAProxy/.test(await adminCommand(paths.adminSocket, 'show info')),
      {
        timeoutMs: 10_000,
        failIf: () => !isAlive(child.pid) && 'haproxy exited (see the dplane lines above)',
      },
    );
  } catch (error) {
    killOnExit();
    throw error;
  }
  log(`data plane on ${options.bind ?? '127.0.0.1'}:${options.port}, admin socket ${paths.adminSocket}`);
  return {
    pid: child.pid,
    exited,
    ...paths,
    port: options.port,
    stop: async () => {
      process.removeListener('exit', killOnExit);
      await terminate(child.pid, { timeoutMs: 5_000 });
    },
  };
}

/**
 * The production images render the config from the environment (`node process.mjs dataplane-config`,
 * run before HAProxy starts, into a volume HAProxy reads): DATAPLANE_DIR, DATAPLANE_PORT,
 * DATAPLANE_BIND, DATAPLANE_ROOM (the room's host:port), PUBLIC_URL, COPY_TOKEN_KEY, DATAPLANE_THREADS,
 * and the limits (dataplaneLimits).
 */
function renderFromEnv(env = process.env) {
  const paths = renderDataplaneConfig({
    dir: env.DATAPLANE_DIR ?? '/dataplane',
    port: Number(env.DATAPLANE_PORT ?? DATAPLANE_DEFAULT_PORT),
    bind: env.DATAPLANE_BIND ?? '0.0.0.0',
    room: env.DATAPLANE_ROOM ?? '127.0.0.1:8083',
    frameAncestors: new URL(env.PUBLIC_URL ?? 'http://localhost:8080').origin,
    tokenKey: env.COPY_TOKEN_KEY,
    threads: Number(env.DATAPLANE_THREADS ?? 2),
    limits: dataplaneLimits(env),
  });
  log(`wrote ${paths.config}`);
}

const entry = process.argv[1] && path.resolve(process.argv[1]);
if (entry === fileURLToPath(import.meta.url) || process.argv[2] === 'dataplane-config') renderFromEnv();
