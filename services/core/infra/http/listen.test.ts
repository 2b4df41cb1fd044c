import Fastify from 'fastify';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { listenForCrowds } from './listen.js';

// A crowd's connections arriving while the server is busy wait in the kernel's queue of the
// listening socket; past it, their SYNs are dropped and each caller's TCP tries again 1, 3, 7 …
// seconds later. The server here is busy for real: its thread is blocked until a crowd, opened
// from another thread, has stopped growing its count of connections the kernel completed.

const CROWD = 1500;

/** Opens `crowd` connections to `port` from a thread of its own; counts those the kernel completed once the count stays put for a second and a half, then wakes `flag`. */
const CROWD_SCRIPT = `
const { workerData, parentPort } = require('node:worker_threads');
const net = require('node:net');
const { port, crowd, flag } = workerData;
const sockets = [];
let connected = 0;
let last = -1;
let still = 0;
for (let i = 0; i < crowd; i++) {
  const s = net.connect(port, '127.0.0.1');
  s.on('connect', () => connected++);
  s.on('error', () => {});
  sockets.push(s);
}
const tick = setInterval(() => {
  still = connected === last ? still + 1 : 0;
  last = connected;
  if (still < 15 && connected < crowd) return;
  clearInterval(tick);
  parentPort.postMessage(connected);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
  setTimeout(() => { for (const s of sockets) s.destroy(); }, 500);
}, 100);
`;

/** How many of a crowd's connections complete while the server's thread is blocked. */
async function completedWhileBusy(port: number): Promise<number> {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(CROWD_SCRIPT, { eval: true, workerData: { port, crowd: CROWD, flag } });
  const counted = new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  // Busy: nothing accepted until the crowd has been counted (or a minute has passed).
  Atomics.wait(flag, 0, 0, 60_000);
  const n = await counted;
  await worker.terminate();
  return n;
}

const apps: ReturnType<typeof Fastify>[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

describe('listenForCrowds', () => {
  it("keeps a crowd's connections in the queue while the server is busy, where Node's default queue drops most of them", async () => {
    const crowded = Fastify();
    apps.push(crowded);
    await listenForCrowds(crowded, 0, '127.0.0.1');
    expect(await completedWhileBusy((crowded.server.address() as { port: number }).port)).toBe(CROWD);

    // The same with Node's default (511): the test can tell the two apart.
    const plain = Fastify();
    apps.push(plain);
    await plain.listen({ port: 0, host: '127.0.0.1' });
    // The kernel completes backlog + 1 of them: 512.
    expect(await completedWhileBusy((plain.server.address() as { port: number }).port)).toBeLessThan(CROWD / 2);
  }, 120_000);
});
