import { execFile } from 'node:child_process';
import { createServer, connect, type Server } from 'node:net';
import { promisify } from 'node:util';
import { quietly, type Teardown } from './teardown.js';

const run = promisify(execFile);

// One machine of the two-host harness, as a network namespace: its own interfaces, routes,
// firewall (the runner's host guard installs its rules in it) and bridges (its copies' networks),
// joined to the default namespace by a veth pair on a /30:
//   default namespace  <outside>/30  ──veth──  <inside>/30  namespace (default route via outside)

export interface NetNamespace {
  name: string;
  /** The default namespace's end of the pair: the room, api and services are reached here. */
  outside: string;
  /** The namespace's end: its runner's API (and later its data-plane proxy) listen here. */
  inside: string;
  /** `nsenter` arguments that run a command inside (the network only: mounts stay shared, so the engine sees the runner's tmpfs mounts). */
  enter: string[];
  /** Cuts the machine off (a host that dies: nothing in or out), or joins it again. */
  setLink(up: boolean): Promise<void>;
}

export async function makeNamespace(td: Teardown, name: string, slot: number): Promise<NetNamespace> {
  // A /30 per machine in 10.77.0.0/16; `slot` keeps two harnesses of one run apart.
  const base = (slot % 16_384) * 4;
  const addr = (n: number) => `10.77.${Math.floor((base + n) / 256)}.${(base + n) % 256}`;
  const [outside, inside] = [addr(1), addr(2)];
  const [vOut, vIn] = [`${name}o`, `${name}i`];
  await run('ip', ['netns', 'add', name]);
  td.add(
    `netns ${name}`,
    () => run('ip', ['netns', 'del', name]),
    () => quietly('ip', ['netns', 'del', name]),
  );
  await run('ip', ['link', 'add', vOut, 'type', 'veth', 'peer', 'name', vIn]);
  // Deleting one end deletes the pair; the namespace's end also goes with the namespace.
  td.add(
    `veth ${vOut}`,
    () => run('ip', ['link', 'del', vOut]).catch(() => {}),
    () => quietly('ip', ['link', 'del', vOut]),
  );
  await run('ip', ['link', 'set', vIn, 'netns', name]);
  await run('ip', ['addr', 'add', `${outside}/30`, 'dev', vOut]);
  await run('ip', ['link', 'set', vOut, 'up']);
  await run('ip', ['-n', name, 'addr', 'add', `${inside}/30`, 'dev', vIn]);
  await run('ip', ['-n', name, 'link', 'set', vIn, 'up']);
  await run('ip', ['-n', name, 'link', 'set', 'lo', 'up']);
  await run('ip', ['-n', name, 'route', 'add', 'default', 'via', outside]);
  return {
    name,
    outside,
    inside,
    enter: [`--net=/run/netns/${name}`],
    async setLink(up) {
      await run('ip', ['link', 'set', vOut, up ? 'up' : 'down']);
    },
  };
}

/**
 * A TCP relay in the default namespace from `listenHost:port` to `127.0.0.1:port`: the test
 * services (Postgres, Redis, the S3 stand-in) listen on loopback only, which a namespace cannot reach.
 */
export async function relay(td: Teardown, listenHost: string, port: number): Promise<void> {
  const server: Server = createServer((inbound) => {
    const outbound = connect(port, '127.0.0.1');
    inbound.pipe(outbound).pipe(inbound);
    const end = () => {
      inbound.destroy();
      outbound.destroy();
    };
    inbound.on('error', end).on('close', end);
    outbound.on('error', end).on('close', end);
  });
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (s) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, listenHost, resolve));
  td.add(`relay ${listenHost}:${port}`, async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
}

/** `url` with its host (a loopback address) replaced by `host`, and its port. */
export function throughRelay(url: string, host: string): { url: string; port: number } {
  const u = new URL(url);
  const port = Number(u.port) || (u.protocol === 'https:' ? 443 : 80);
  u.hostname = host;
  return { url: u.toString().replace(/\/$/, url.endsWith('/') ? '/' : ''), port };
}
