// Helpers shared by the local launcher. Node builtins only: start.mjs runs before `npm ci`.
import { spawn } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Every line of the combined log starts with the process name padded to 7 ("api    | ").
export const prefix = (name) => `${name.padEnd(7)}| `;

export function logger(name) {
  return (message) =>
    process.stdout.write(
      String(message)
        .split('\n')
        .map((line) => prefix(name) + line + '\n')
        .join(''),
    );
}

/** Copies a stream to stdout line by line, each line prefixed with `name`. */
export function pipeLines(stream, name) {
  let rest = '';
  const write = (line) => process.stdout.write(prefix(name) + line.replace(/\r$/, '') + '\n');
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    lines.forEach(write);
  });
  stream.on('end', () => rest && write(rest));
}

/** A TCP port on 127.0.0.1 that nothing listens on: `preferred` when free, else one the kernel picks. */
export async function freePort(preferred) {
  if (preferred && (await canListen(preferred))) return preferred;
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export function canListen(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.on('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * Polls `check` (truthy = done; a throw counts as "not yet") until it passes or `timeoutMs` ends.
 * `failIf` returns a reason to stop waiting at once (say, the process being waited on died).
 */
export async function waitUntil(what, check, { timeoutMs = 30_000, intervalMs = 100, failIf } = {}) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  for (;;) {
    try {
      const result = await check();
      if (result) return result;
    } catch (error) {
      lastError = error;
    }
    const reason = failIf?.();
    if (reason) throw new Error(`gave up waiting for ${what}: ${reason}`);
    if (Date.now() > deadline) {
      const why = lastError ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}${why}`);
    }
    await sleep(intervalMs);
  }
}

/**
 * Starts a component's server as a detached child (its own process group: a Ctrl-C in the
 * terminal reaches only the launcher), its output in the combined log under `name`, and waits
 * until `ready` passes. A child that dies first, or is not ready in time, is stopped and the start
 * fails. Returns what components.mjs keeps of a started component: pid, exited and stop().
 */
export async function startProcess(
  name,
  command,
  args,
  { env = process.env, program = command, waitingFor, ready, stopTimeoutMs = 10_000 },
) {
  const child = spawn(command, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  pipeLines(child.stdout, name);
  pipeLines(child.stderr, name);
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  await waitUntil(waitingFor, ready, {
    failIf: () => !isAlive(child.pid) && `${program} exited (see the ${name} lines above)`,
  }).catch(async (error) => {
    await terminate(child.pid, { timeoutMs: 2_000 });
    throw error;
  });
  return { pid: child.pid, exited, stop: () => terminate(child.pid, { timeoutMs: stopTimeoutMs }) };
}

/** Runs a command to completion; rejects with its output when it exits non-zero. */
export function run(command, args, { env = process.env, cwd, input, allowFail = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data) => (stdout += data));
    child.stderr.on('data', (data) => (stderr += data));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0 || allowFail) return resolve({ code, stdout, stderr });
      const output = (stderr || stdout).trim();
      reject(new Error(`${command} ${args.join(' ')} exited with ${code}${output ? `:\n${output}` : ''}`));
    });
    child.stdin.end(input);
  });
}

/** Finds an executable on PATH, plus the sbin folders a non-login root shell may lack. */
export function which(command) {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/local/sbin', '/usr/sbin', '/sbin'];
  for (const dir of dirs.filter(Boolean)) {
    try {
      accessSync(path.join(dir, command), constants.X_OK);
      return path.join(dir, command);
    } catch {}
  }
  return null;
}

/** True when `pid` is a live process (a zombie is dead: pid 1 here may never reap orphans). */
export function isAlive(pid) {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (error.code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true;
  }
}

/** The command line of `pid`, to tell our old process from an unrelated one that reused its pid. */
export function commandLine(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/**
 * SIGTERM, then SIGKILL after `timeoutMs`. SIGTERM goes to the process alone (a second copy
 * through its group would make close-with-grace exit at once); with `group`, the SIGKILL takes
 * its whole process group (a detached child leads its own), so nothing it spawned lingers.
 */
export async function terminate(pid, { group = false, timeoutMs = 10_000 } = {}) {
  const signal = (target, name) => {
    try {
      process.kill(target, name);
    } catch {}
  };
  if (!isAlive(pid)) return 'gone';
  signal(pid, 'SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) {
      if (group) signal(-pid, 'SIGKILL'); // whatever it left behind in its group
      return 'stopped';
    }
    await sleep(50);
  }
  signal(group ? -pid : pid, 'SIGKILL');
  await waitUntil(`pid ${pid} to die`, () => !isAlive(pid), { timeoutMs: 5_000 }).catch(() => {});
  return 'killed';
}

/** Quotes one word for /bin/sh (pg_ctl hands its -o string to a shell). */
export const shellQuote = (word) => `'${String(word).replaceAll("'", `'\\''`)}'`;

/**
 * Runs Vite's `build` and puts NODE_ENV back as it was: Vite sets process.env.NODE_ENV to
 * 'production' for the build, and `npm start` decides NODE_ENV after building (a fresh clone's
 * first start would otherwise run the whole platform as production: no local webhook receivers).
 */
export async function viteBuild(config) {
  const before = process.env.NODE_ENV;
  const { build } = await import('vite');
  try {
    await build(config);
  } finally {
    if (before === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = before;
  }
}

export const seconds = (ms) => `${(ms / 1000).toFixed(1)}s`;
