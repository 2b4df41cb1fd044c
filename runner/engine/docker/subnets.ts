import { randomInt } from 'node:crypto';

// Each copy gets its own internal network, so copies cannot see each other and the host reaches
// a copy at its own address without publishing a port (no host-port collisions, moby#9047).
// The addresses come from one pool (RUNNER_SUBNETS) cut into /29s: a gateway (the host's side
// of the bridge) and the copy, with room to spare. A /16 holds 8,192 of them.

const SIZE = 29;

export interface Subnet {
  subnet: string;
  gateway: string;
}

const toInt = (ip: string) => ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
const toIp = (n: number) => [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');

export function parsePool(cidr: string): { base: number; count: number } {
  const [ip, bits] = cidr.split('/');
  const prefix = Number(bits);
  if (!(prefix >= 8 && prefix <= SIZE)) throw new Error(`subnet pool ${cidr}: the prefix must be from /8 to /${SIZE}`);
  const span = 2 ** (32 - prefix);
  const base = toInt(ip) - (toInt(ip) % span);
  return { base, count: span / 2 ** (32 - SIZE) };
}

/** A random /29 of the pool. Random, not sequential: several runners on one engine rarely collide, and the engine refuses a subnet already in use, so a collision only costs a retry. */
export function pickSubnet(cidr: string, rand: (n: number) => number = randomInt): Subnet {
  const { base, count } = parsePool(cidr);
  const start = base + rand(count) * 2 ** (32 - SIZE);
  return { subnet: `${toIp(start)}/${SIZE}`, gateway: toIp(start + 1) };
}
