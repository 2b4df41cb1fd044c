import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, isAlive, sleep } from '../../infra/local/lib.mjs';
import { waitFor } from './wait-for.js';

// `npm start` itself (package.json's script, infra/local/start.mjs), as a builder runs it on a
// fresh clone: a data dir of its own under the temp folder, so it starts its own Postgres, Redis,
// S3 store, registry, container engine service and data plane on free ports and never touches the
// test services other files share. Only what a builder's shell would have reaches it: none of the
// test services' variables, no NODE_ENV. Stopped as a builder stops it (SIGTERM), then checked:
// no process anywhere still names its data dir, and what did is killed.

const repoRoot = path.resolve(import.meta.dirname, '../..');

export interface NpmStart {
  baseUrl: string;
  dataDir: string;
  /** Everything the launcher and its children printed so far. */
  output(): string;
  /** Runs `npm run ops -- …` against this platform as an operator would locally (DATA_DIR's components). */
  ops(...args: string[]): Promise<{ code: number | null; output: string }>;
  /**
   * SIGTERM as a terminal sends it, then waits (90 s at most) for the launcher to stop what it
   * started. Answers whether it said `stopped`, and the processes still naming the data dir after
   * that (killed here, before the data dir is removed): a sound launcher leaves none.
   */
  stop(): Promise<{ saidStopped: boolean; leftovers: string[] }>;
}

/** The variables a builder's own shell would pass on: none of the tests' services or settings. */
function builderShell(): Record<string, string> {
  const keep = ['PATH', 'HOME', 'USER', 'LANG', 'TERM', 'TMPDIR', 'SHELL'];
  return Object.fromEntries(keep.filter((key) => process.env[key] !== undefined).map((key) => [key, process.env[key]!]));
}

/** Processes (other than this one) whose command line or environment names `dir`. */
function processesNaming(dir: string): { pid: number; command: string }[] {
  const found: { pid: number; command: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid || !isAlive(pid)) continue;
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
      if (command.includes(dir) || environ.includes(dir)) found.push({ pid, command });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

function killAll(pids: number[], signal: NodeJS.Signals) {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {}
  }
}

/** Ends every process naming `dir`: SIGTERM, then SIGKILL after `graceMs`. Answers what it found. */
async function endEverythingNaming(dir: string, graceMs: number): Promise<string[]> {
  const found = processesNaming(dir);
  if (!found.length) return [];
  killAll(
    found.map((p) => p.pid),
    'SIGTERM',
  );
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && processesNaming(dir).length) await sleep(100);
  for (let round = 0; round < 20 && processesNaming(dir).length; round++) {
    killAll(
      processesNaming(dir).map((p) => p.pid),
      'SIGKILL',
    );
    await sleep(100);
  }
  return found.map((p) => `${p.pid} ${p.command}`);
}

const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    child.on('exit', (code) => resolve(code));
  });

/**
 * `npm start` with a data dir of its own, on free ports; resolves once it prints `ready <url>`.
 * On any failure it is stopped and swept before the error is thrown.
 */
export async function startNpmStart(opts: { readyWithinMs?: number } = {}): Promise<NpmStart> {
  // Short: the engine's socket under it must stay under a unix socket's 108 bytes.
  const dataDir = mkdtempSync(path.join(tmpdir(), 'npm-start-'));
  chmodSync(dataDir, 0o755); // as root, Postgres runs as the postgres user, who must enter it
  const [port, runnerPort, workersPort, dataplanePort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const env = {
    ...builderShell(),
    DATA_DIR: dataDir,
    PORT: String(port),
    RUNNER_PORT: String(runnerPort),
    WORKERS_PORT: String(workersPort),
    DATAPLANE_PORT: String(dataplanePort),
    // Containers live in the machine's one podman storage, whichever service answers: an id of
    // its own keeps this runner's start from adopting or ending copies other runners started.
    RUNNER_ID: `npm-start-${randomBytes(4).toString('hex')}`,
    // Each process finishes what it has within this on SIGTERM (30 s by default); nothing is in flight here.
    SHUTDOWN_SECONDS: '5',
  };
  const child = spawn('npm', ['start'], { cwd: repoRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = exitOf(child);
  // Last resort should this test process itself be ended: nothing started here may outlive it.
  const onExit = () => {
    for (const { pid } of processesNaming(dataDir)) killAll([pid], 'SIGKILL');
  };
  process.on('exit', onExit);

  let stopped: Promise<{ saidStopped: boolean; leftovers: string[] }> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      try {
        // npm, its shell and the launcher, as a closing terminal sends it. npm itself dies of it at
        // once (its exit says nothing); the launcher stops what it started, then says `stopped`.
        process.kill(-child.pid!, 'SIGTERM');
      } catch {}
      const deadline = Date.now() + 90_000;
      while (Date.now() < deadline && processesNaming(dataDir).length) await sleep(200);
      const leftovers = await endEverythingNaming(dataDir, 5_000);
      process.off('exit', onExit);
      rmSync(dataDir, { recursive: true, force: true });
      return { saidStopped: /^start +\| stopped$/m.test(output), leftovers };
    })());

  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    let gone = false;
    void exited.then(() => (gone = true));
    await waitFor(
      `npm start to print "ready ${baseUrl}"`,
      async () => {
        if (gone) throw new Error(`npm start exited before it was ready:\n${output.split('\n').slice(-40).join('\n')}`);
        return output.includes(`ready ${baseUrl}\n`);
      },
      opts.readyWithinMs ?? 240_000,
      200,
    );
  } catch (err) {
    const { leftovers } = await stop();
    throw new Error(`${(err as Error).message}${leftovers.length ? `\n(killed afterwards: ${leftovers.join('; ')})` : ''}`);
  }

  return {
    baseUrl,
    dataDir,
    output: () => output,
    async ops(...args: string[]) {
      const ops = spawn('npm', ['run', '--silent', 'ops', '--', ...args], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      ops.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      ops.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      return { code: await exitOf(ops), output: text };
    },
    stop,
  };
}
