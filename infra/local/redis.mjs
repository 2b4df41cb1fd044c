// Local Redis: the Debian redis-server as a child, persisting under <data>/redis.
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort, startProcess, which } from './lib.mjs';

export async function startRedis({ dataDir, port: preferred }) {
  const dir = path.join(dataDir, 'redis');
  mkdirSync(dir, { recursive: true });
  const port = await freePort(preferred);
  const binary = which('redis-server');
  if (!binary) throw new Error('redis-server is not installed (apt-get install redis-server), or set REDIS_URL');
  const args = [
    '--bind',
    '127.0.0.1',
    '--port',
    String(port),
    '--dir',
    dir,
    '--appendonly',
    'yes', // queued jobs survive a restart
    '--maxmemory-policy',
    'noeviction', // BullMQ breaks if Redis evicts its keys
    '--loglevel',
    'warning',
  ];
  const url = `redis://127.0.0.1:${port}`;
  // SIGTERM (its stop) makes redis flush the append-only file before it exits.
  const redis = await startProcess('redis', binary, args, {
    program: 'redis-server',
    waitingFor: 'redis to answer PING',
    ready: async () => (await redisCommands(url, ['PING'])) === '+PONG',
  });
  return { env: { REDIS_URL: url }, port, ...redis };
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
