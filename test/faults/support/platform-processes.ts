import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createClient } from '@demo-rooms/contract';
import { createSql, type Sql } from '../../../services/core/infra/db.js';
import { issueToken } from '../../../services/ops/ops.service.js';
import { repoRoot, type ThrowawayServices } from './throwaway-services.js';
import { waitFor } from '../../support/wait-for.js';

export { waitFor };

// The platform's own processes (api, workers) started as `npm start` starts them, as children of
// the test, so a fault test can SIGKILL or SIGTERM them like an orchestrator would.

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface PlatformProcess {
  name: string;
  child: ChildProcess;
  logFile: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The last lines it wrote, to explain a failure. */
  tail(lines?: number): string;
}

let started = 0;

/**
 * Runs a TypeScript entry point the way the launcher does (`node --import tsx <file>`); with `ipc`,
 * with a message channel too (`child.send`, `process.send`).
 */
export function spawnProcess(
  name: string,
  file: string,
  env: Record<string, string>,
  dir: string,
  opts: { ipc?: boolean } = {},
): PlatformProcess {
  const logFile = path.join(dir, `${name}-${++started}.log`);
  const log = createWriteStream(logFile);
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'info', ...env },
    stdio: opts.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    name,
    child,
    logFile,
    exited,
    tail: (lines = 40) => readFileSync(logFile, 'utf8').split('\n').slice(-lines).join('\n'),
  };
}

export interface Api extends PlatformProcess {
  baseUrl: string;
}

/** The api and the room (services/platform/main.ts) on a free port; resolves once /healthz answers. */
export async function startApi(services: ThrowawayServices, env: Record<string, string> = {}): Promise<Api> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const api = spawnProcess(
    'api',
    'services/platform/main.ts',
    { ...services.env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: baseUrl, ...env },
    services.dir,
  );
  await untilUp(api, `${baseUrl}/healthz`);
  return { ...api, baseUrl };
}

export interface Workers extends PlatformProcess {
  baseUrl: string;
}

/** The workers (workers/main.ts) with their listener on a free port; resolves once /readyz answers. */
export async function startWorkers(services: ThrowawayServices, env: Record<string, string> = {}): Promise<Workers> {
  const port = env.WORKERS_PORT ? Number(env.WORKERS_PORT) : await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const workers = spawnProcess(
    'workers',
    'workers/main.ts',
    { ...services.env, WORKERS_PORT: String(port), HOST: '127.0.0.1', ...env },
    services.dir,
  );
  await untilUp(workers, `${baseUrl}/readyz`);
  return { ...workers, baseUrl };
}

/**
 * test/support/worker-process.ts: one unpack worker with short locks (1.5 s), so the job of a
 * killed one is retaken within seconds rather than the production half minute.
 */
export async function startShortLockWorker(services: ThrowawayServices): Promise<PlatformProcess> {
  const worker = spawnProcess('worker', 'test/support/worker-process.ts', services.env, services.dir);
  await waitFor(
    'the worker to say it is ready',
    async () => {
      if (worker.child.exitCode !== null) throw new Error(`the worker exited:\n${worker.tail()}`);
      return readFileSync(worker.logFile, 'utf8').includes('worker ready');
    },
    60_000,
    100,
  );
  return worker;
}

async function untilUp(p: PlatformProcess, url: string) {
  let dead = false;
  void p.exited.then(() => (dead = true));
  await waitFor(
    `${p.name} to answer ${url}`,
    async () => {
      if (dead) throw new Error(`${p.name} exited before it was up:\n${p.tail()}`);
      return (await fetch(url, { signal: AbortSignal.timeout(2_000) })).status === 200;
    },
    60_000,
    100,
  ).catch((err) => {
    p.child.kill('SIGKILL');
    throw err;
  });
}

export interface Supervised<T extends PlatformProcess> {
  readonly current: T;
  /** How many times the process exited on its own and was started again. */
  readonly restarts: number;
  /** The logs of every run, oldest first, to explain a failure. */
  readonly runs: T[];
  stop(): void;
}

/**
 * Starts a process again whenever it exits on its own, as compose (`restart: unless-stopped`) and
 * Kubernetes do: a process that meets an error it cannot trust itself after exits on purpose.
 * `start` must bring it back on the same port.
 */
export async function supervise<T extends PlatformProcess>(start: () => Promise<T>): Promise<Supervised<T>> {
  let stopped = false;
  const runs: T[] = [await start()];
  const watch = (p: T) => {
    void p.exited.then(async () => {
      for (let attempt = 0; !stopped; attempt++) {
        try {
          const next = await start();
          runs.push(next);
          watch(next);
          return;
        } catch (err) {
          if (attempt > 20) throw err;
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }
    });
  };
  watch(runs[0]);
  return {
    get current() {
      return runs[runs.length - 1];
    },
    get restarts() {
      return runs.length - 1;
    },
    runs,
    stop() {
      stopped = true;
      for (const run of runs) run.child.kill('SIGKILL');
    },
  };
}

/** SIGKILL, and wait until the process is gone: a crash, nothing is finished or handed back. */
export async function kill(p: PlatformProcess) {
  p.child.kill('SIGKILL');
  await p.exited;
}

/** A builder on the throwaway platform: a person on `plan` with a bearer token and a typed client. */
export async function builder(sql: Sql, baseUrl: string, plan = 'agency') {
  const email = `f-${crypto.randomUUID()}@example.com`;
  const { token } = await issueToken(sql, email, {});
  await sql`update workspaces set plan = ${plan}
            where id = (select pw.workspace_id from personal_workspaces pw join people p on p.id = pw.person_id where p.email = ${email})`;
  // Every call has a deadline: a request the api never answers is a failure to see, not a hang.
  // Generous, as createBuild waits for its job, and a handed-back job for a lapsed lock.
  const timed: typeof fetch = (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(300_000) });
  return { token, client: createClient({ baseUrl, token, fetch: timed }) };
}

/** A direct connection to the throwaway database, to check what was kept. */
export const databaseOf = (services: ThrowawayServices) => createSql(services.env.DATABASE_URL, { max: 2 });
