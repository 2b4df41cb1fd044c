// Local Redis: the Debian redis-server as a child, persisting under <data>/redis.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort, isAlive, pipeLines, terminate, waitUntil, which } from './lib.mjs';

export async function startRedis({ dataDir, port: preferred }) {
  const dir = path.join(dataDir, 'redis');
  mkdirSync(dir, { recursive: true });
  const port = await freePort(preferred);
  const binary = which('redis-server');
  if (!binary) throw new Error('redis-server is not installed (apt-get install redis-server), or set REDIS_URL');
  const args = [
    '--bind', '127.0.0.1',
    '--port', String(port),
    '--dir', dir,
    '--appendonly', 'yes', // queued jobs survive a restart
    '--maxmemory-policy', 'noeviction', // BullMQ breaks if Redis evicts its keys
    '--loglevel', 'warning',
  ];
  const child = spawn(binary, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  pipeLines(child.stdout, 'redis');
  pipeLines(child.stderr, 'redis');
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const url = `redis://127.0.0.1:${port}`;
  await waitUntil('redis to answer PING', async () => (await redisCommands(url, ['PING'])) === '+PONG', {
    failIf: () => !isAlive(child.pid) && 'redis-server exited (see the redis lines above)',
  }).catch(async (error) => {
    await terminate(child.pid, { timeoutMs: 2_000 });
    throw error;
  });
  return {
    env: { REDIS_URL: url },
    pid: child.pid,
    port,
    exited,
    // SIGTERM makes redis flush the append-only file before it exits.
    stop: () => terminate(child.pid, { timeoutMs: 10_000 }),
  };
}

/**
 * Sends inline commands (no auth; only for our own loopback redis) and resolves with the
 * replies joined by newlines once one reply per command arrived.
 */
export function redisCommands(url, commands, timeoutMs = 2_000) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let data = '';
    const done = (error, value) => {
      socket.destroy();
      error ? reject(error) : resolve(value);
    };
    socket.setTimeout(timeoutMs, () => done(new Error(`no reply from ${url}`)));
    socket.on('error', done);
    socket.on('data', (chunk) => {
      data += chunk;
      const replies = data.split('\r\n').filter(Boolean);
      if (replies.length >= commands.length) done(null, replies.join('\n'));
    });
    socket.write(commands.map((command) => `${command}\r\n`).join(''));
  });
}

/** Empties one database number (the tests' database on a shared redis). */
export async function flushRedisDb(url, db) {
  const replies = await redisCommands(url, [`SELECT ${db}`, 'FLUSHDB']);
  if (replies !== '+OK\n+OK') throw new Error(`could not flush redis db ${db}: ${replies}`);
}
