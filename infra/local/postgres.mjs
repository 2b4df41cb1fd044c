// Local Postgres: a cluster made with the machine's initdb under <data>/postgres, run by pg_ctl.
// Postgres refuses to run as root, so as root every server command runs as the `postgres` user.
import { spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { commandLine, freePort, isAlive, logger, pipeLines, run, shellQuote, waitUntil } from './lib.mjs';
import { postgresBinDir } from './packages.mjs';

const log = logger('postgres');
const isRoot = process.getuid?.() === 0;

export async function startPostgres({ dataDir, port: preferred, fast = false, quiet = false }) {
  const bin = postgresBinDir();
  if (!bin) throw new Error('no Postgres 15+ found (apt-get install postgresql, set PG_BIN, or set DATABASE_URL)');
  const dir = path.join(dataDir, 'postgres');
  const asServer = (command, args) =>
    isRoot ? run('runuser', ['-u', 'postgres', '--', path.join(bin, command), ...args]) : run(path.join(bin, command), args);

  if (isRoot) await ensurePostgresUser();
  if (!existsSync(path.join(dir, 'PG_VERSION'))) await initCluster(dir, asServer);
  if (isRoot) await ensureOwner(dir);
  await clearStalePid(dir, asServer);

  const port = await freePort(preferred);
  const logFile = path.join(dir, 'server.log');
  if (existsSync(logFile) && statSync(logFile).size > 10 * 2 ** 20) renameSync(logFile, `${logFile}.old`); // pg_ctl -l only appends
  if (!existsSync(logFile)) writeFileSync(logFile, '');
  if (isRoot) {
    const { uid, gid } = await userIds('postgres');
    chownSync(logFile, uid, gid);
  }
  // tail follows the server log into the combined log, and dies with us even if we are killed.
  // `quiet` (tests) keeps it in the file: errors the tests provoke on purpose would drown vitest.
  const tail = quiet ? null : spawn('tail', ['-n', '0', '-F', `--pid=${process.pid}`, logFile], { stdio: ['ignore', 'pipe', 'ignore'] });
  if (tail) pipeLines(tail.stdout, 'postgres');

  const options = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${shellQuote(dir)}`, // not /var/run/postgresql, which may not exist
    '-c max_connections=200', // api, workers, runner and parallel test files each hold a pool
    '-c log_checkpoints=off',
    // Test data is thrown away, so skip the disk flushes that make each commit slow.
    ...(fast ? ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off'] : []),
  ].join(' ');
  await asServer('pg_ctl', ['-D', dir, '-l', logFile, '-o', options, '-w', '-t', '60', 'start']).catch((error) => {
    tail?.kill();
    throw new Error(`${error.message}\n(see ${logFile})`);
  });
  const pid = Number(readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const url = `postgres://postgres@127.0.0.1:${port}/rooms`;
  const stopServer = async () => {
    if (isAlive(pid))
      await asServer('pg_ctl', ['-D', dir, 'stop', '-m', 'fast', '-w', '-t', '30']).catch((error) => {
        log(`fast stop failed (${error.message}); stopping immediately`);
        return asServer('pg_ctl', ['-D', dir, 'stop', '-m', 'immediate', '-w']);
      });
    tail?.kill();
  };
  try {
    await waitUntil('postgres to accept TCP connections', () => psql(url, 'select 1'), {
      failIf: () => !isAlive(pid) && `the server exited (see ${logFile})`,
    });
    await ensureDatabase(url, 'rooms');
  } catch (error) {
    await stopServer().catch(() => {});
    throw error;
  }

  let watch;
  const exited = new Promise((resolve) => {
    watch = setInterval(() => isAlive(pid) || resolve({ code: null, signal: null }), 1_000);
    watch.unref();
  });
  return {
    env: { DATABASE_URL: url },
    pid,
    port,
    exited,
    stop() {
      clearInterval(watch);
      return stopServer();
    },
  };
}

async function ensurePostgresUser() {
  const { code } = await run('id', ['-u', 'postgres'], { allowFail: true });
  if (code === 0) return;
  log('creating the postgres OS user (postgres refuses to run as root)');
  await run('useradd', [
    '--system',
    '--user-group',
    '--no-create-home',
    '--home-dir',
    '/var/lib/postgresql',
    '--shell',
    '/bin/sh',
    'postgres',
  ]);
}

async function initCluster(dir, asServer) {
  if (existsSync(dir)) {
    log(`${dir} holds no cluster (an interrupted initdb?); removing it`);
    rmSync(dir, { recursive: true, force: true });
  }
  mkdirSync(path.dirname(dir), { recursive: true });
  mkdirSync(dir, { mode: 0o700 });
  if (isRoot) {
    const { uid, gid } = await userIds('postgres');
    chownSync(dir, uid, gid);
    const { code } = await run('runuser', ['-u', 'postgres', '--', 'test', '-w', dir], { allowFail: true });
    if (code !== 0) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(
        `the postgres user cannot reach ${dir}: a parent folder is not searchable by others ` +
          `(for example a checkout under /root). Run from a folder others can traverse, ` +
          `chmod o+x the parent folders, or set DATA_DIR or DATABASE_URL.`,
      );
    }
  }
  log(`initdb ${dir}`);
  await asServer('initdb', ['-D', dir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C']);
}

async function userIds(name) {
  const [uid, gid] = await Promise.all(['-u', '-g'].map((flag) => run('id', [flag, name])));
  return { uid: Number(uid.stdout), gid: Number(gid.stdout) };
}

/**
 * A run killed with SIGKILL leaves postmaster.pid behind, and may leave the server running.
 * Postgres refuses to start when the recorded pid now belongs to some other process.
 */
async function clearStalePid(dir, asServer) {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (isAlive(pid) && commandLine(pid).includes('postgres')) {
    log(`a server from an earlier run is still up (pid ${pid}); stopping it`);
    await asServer('pg_ctl', ['-D', dir, 'stop', '-m', 'fast', '-w', '-t', '30']);
  } else {
    log(`removing stale postmaster.pid (pid ${pid} is gone)`);
    unlinkSync(pidFile);
  }
}

/** A cluster copied or restored by root would be refused by the server ("wrong ownership"). */
async function ensureOwner(dir) {
  const { uid, gid } = await userIds('postgres');
  if (statSync(dir).uid !== uid) await run('chown', ['-R', `${uid}:${gid}`, dir]);
}

/** Runs SQL on the server of `url` (in its `postgres` database) with psql. */
export async function psql(url, sql) {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const { stdout } = await run(path.join(postgresBinDir() ?? '', 'psql'), [
    '-X',
    '-q',
    '-tA',
    '-v',
    'ON_ERROR_STOP=1',
    '-d',
    admin.toString(),
    '-c',
    sql,
  ]);
  return stdout.trim() || 'ok';
}

/** Creates database `name` on the server of `url` when missing; with `fresh`, drops it first. */
export async function ensureDatabase(url, name, { fresh = false } = {}) {
  const quoted = `"${name.replaceAll('"', '""')}"`;
  if (fresh) await psql(url, `drop database if exists ${quoted} with (force)`);
  const exists = await psql(url, `select count(*) from pg_database where datname = '${name.replaceAll("'", "''")}'`);
  if (exists === '0') await psql(url, `create database ${quoted}`);
}

/** `url` pointing at database `name` instead. */
export function withDatabase(url, name) {
  const next = new URL(url);
  next.pathname = `/${name}`;
  return next.toString();
}
