import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually } from '../runner/test-runner.js';
import { testEnv } from '../services.js';
import { makeNamespace, relay, throughRelay, type NetNamespace } from './net-namespace.js';
import { quietly, type Teardown } from './teardown.js';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../../', import.meta.url));

// One runner host of the two-host harness: a network namespace (net-namespace.ts) with its own
// podman service (its own storage root, run root, network config and socket), and its own runner
// process (runner/main.ts, as `npm start` runs it) that registers in the test's fleet and reaches
// Postgres and the object store through relays on its veth address. A per-host hook runs inside
// before the runner starts: the data plane (an HAProxy per host) starts there and names the
// host's copy origin.

/** What a per-host hook is given: the machine, its folder, and a way to start tracked processes inside it. */
export interface HostMachine {
  name: string;
  net: NetNamespace;
  dir: string;
  /** Starts `cmd` inside the namespace; killed at teardown, whatever else fails. */
  spawnInside(cmd: string, args: string[], env?: Record<string, string>): ChildProcess;
}

/** A hook per host: may start a proxy inside and answer the host's copy origin (RUNNER_COPY_ORIGIN) and more of its runner's environment. */
export type HostHook = (m: HostMachine) => Promise<{ copyOrigin?: string; env?: Record<string, string> } | undefined>;

export interface RunnerHostOptions {
  /** Short, [a-z0-9]: names the namespace, the veth pair and the runner id. */
  name: string;
  fleet: string;
  slot: number;
  slots: number;
  hook?: HostHook;
  hookTimeoutMs?: number;
  env?: Record<string, string>;
}

export interface RunnerHost {
  id: string;
  name: string;
  net: NetNamespace;
  apiUrl: string;
  copyOrigin: string | null;
  /** The machine dies: its runner and engine are killed at once and its link is cut. */
  kill(): Promise<void>;
  /** Containers in this host's engine carrying its runner id. */
  containers(): Promise<string[]>;
}

const RUNNER_PORT = 8181;

export async function startRunnerHost(td: Teardown, o: RunnerHostOptions): Promise<RunnerHost> {
  const id = `${o.fleet}-${o.name}`.slice(0, 40);
  const net = await makeNamespace(td, `rh${o.fleet.slice(-5)}${o.name}`.slice(0, 12), o.slot);
  // A short path: the podman socket's must stay under 108 bytes.
  const dir = `/tmp/rh-${o.fleet.slice(-8)}-${o.name}`;
  await mkdir(dir, { recursive: true });
  td.add(
    `folder ${dir}`,
    async () => {
      unmountUnder(dir);
      await rm(dir, { recursive: true, force: true });
    },
    () => unmountUnder(dir),
  );

  const children: ChildProcess[] = [];
  const spawnInside = (cmd: string, args: string[], env: Record<string, string> = {}) => {
    const child = spawn('nsenter', [...net.enter, cmd, ...args], {
      cwd: repo,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    // The child's last words, for a test that fails: kept short.
    let tail = '';
    child.stderr?.on('data', (d: Buffer) => (tail = (tail + d.toString()).slice(-4_000)));
    child.on('exit', (code, signal) => {
      if (code && code !== 0 && process.env.TEST_LOG_LEVEL) console.error(`[${o.name}] ${cmd} exited ${code ?? signal}\n${tail}`);
    });
    return child;
  };
  // nsenter execs the command in place, so each child's pid is the process's own.
  td.add(
    `processes of ${o.name}`,
    async () => {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : null)));
    },
    () => {
      for (const c of children) c.kill('SIGKILL');
    },
  );

  const env = testEnv();
  const podmanArgs = [
    '--root',
    `${dir}/storage`,
    '--runroot',
    `${dir}/run`,
    '--tmpdir',
    `${dir}/tmp`,
    '--network-config-dir',
    `${dir}/networks`,
  ];
  const podmanEnv = { CONTAINERS_CONF: env.CONTAINERS_CONF };
  // Containers the engine still holds (a killed host's): removed through the CLI at teardown, which needs no service.
  td.add(`containers of ${o.name}`, () =>
    run('nsenter', [...net.enter, 'podman', ...podmanArgs, 'rm', '-af', '-t', '0'], { env: { ...process.env, ...podmanEnv } }).catch(
      () => {},
    ),
  );
  const socket = `${dir}/podman.sock`;
  spawnInside('podman', [...podmanArgs, 'system', 'service', '--time=0', `unix://${socket}`], podmanEnv);
  await eventually(
    async () => {
      const ok = await run('curl', ['-s', '--unix-socket', socket, 'http://d/_ping']).catch(() => null);
      return ok?.stdout === 'OK';
    },
    30_000,
    100,
  );

  // The services, through relays on this machine's veth address.
  const rewritten: Record<string, string> = {};
  for (const key of ['DATABASE_URL', 'REDIS_URL', 'S3_ENDPOINT'] as const) {
    const r = throughRelay(env[key], net.outside);
    await relay(td, net.outside, r.port);
    rewritten[key] = r.url;
  }

  let copyOrigin: string | null = null;
  let hookEnv: Record<string, string> = {};
  if (o.hook) {
    const hooked = await Promise.race([
      o.hook({ name: o.name, net, dir, spawnInside }),
      sleep(o.hookTimeoutMs ?? 60_000).then(() => {
        throw new Error(`the hook of host ${o.name} did not finish in ${o.hookTimeoutMs ?? 60_000} ms`);
      }),
    ]);
    copyOrigin = hooked?.copyOrigin ?? null;
    hookEnv = hooked?.env ?? {};
  }

  const apiUrl = `http://${net.inside}:${RUNNER_PORT}`;
  const runner = spawnInside(process.execPath, ['--import', 'tsx', 'runner/main.ts'], {
    ...(env as unknown as Record<string, string>),
    ...rewritten,
    NODE_ENV: 'production',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    DATA_DIR: `${dir}/data`,
    DOCKER_HOST: `unix://${socket}`,
    HOST: net.inside,
    RUNNER_PORT: String(RUNNER_PORT),
    RUNNER_ID: id,
    RUNNER_FLEET: o.fleet,
    RUNNER_ADVERTISE_URL: apiUrl,
    ...(copyOrigin ? { RUNNER_COPY_ORIGIN: copyOrigin } : {}),
    RUNNER_HOST_CAPACITY: String(o.slots),
    RUNNER_WRITABLE_DIR: `${dir}/copies`,
    RUNNER_WARM_MAX: '0',
    RUNNER_RECONCILE_S: '3',
    RUNNER_HEALTH_TIMEOUT_S: '30',
    ...hookEnv,
    ...o.env,
  });
  await eventually(
    async () => {
      if (runner.exitCode !== null) throw new Error(`runner of host ${o.name} exited ${runner.exitCode}`);
      return (await fetch(`${apiUrl}/readyz`).catch(() => null))?.ok;
    },
    60_000,
    200,
  );

  return {
    id,
    name: o.name,
    net,
    apiUrl,
    copyOrigin,
    async kill() {
      await net.setLink(false);
      for (const c of children) c.kill('SIGKILL');
      await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : null)));
    },
    async containers() {
      const { stdout } = await run(
        'nsenter',
        [...net.enter, 'podman', ...podmanArgs, 'ps', '-aq', '--filter', `label=rooms.runner=${id}`],
        { env: { ...process.env, ...podmanEnv } },
      );
      return stdout.split('\n').filter(Boolean);
    },
  };
}

/** Unmounts, deepest first, everything mounted under `dir` (the engine's overlays, the runner's tmpfs). */
function unmountUnder(dir: string) {
  let mounts: string[] = [];
  try {
    mounts = readFileSync('/proc/self/mounts', 'utf8')
      .split('\n')
      .map((l) => l.split(' ')[1])
      .filter((m) => m && (m === dir || m.startsWith(`${dir}/`)));
  } catch {
    return;
  }
  for (const m of mounts.sort().reverse()) quietly('umount', ['-l', m]);
}
