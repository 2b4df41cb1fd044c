import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canRunHosts, startFleet } from '../support/hosts/two-hosts.js';

// The two-host harness leaves nothing behind on the machine, even when a host's hook (the data
// plane's proxy starting inside) never finishes: its processes are killed, its namespace, veth
// pair and folder go.

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(!canRunHosts())('the two-host harness', () => {
  it('tears down a host whose hook times out', async () => {
    let pid = 0;
    let namespace = '';
    let dir = '';
    await expect(
      startFleet({
        hosts: [
          {
            name: 'a',
            slots: 1,
            hookTimeoutMs: 2_000,
            hook: (m) => {
              namespace = m.net.name;
              dir = m.dir;
              pid = m.spawnInside('sleep', ['1000']).pid!;
              return new Promise(() => {});
            },
          },
        ],
        lostS: 10,
      }),
    ).rejects.toThrow(/did not finish/);
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(false);
    expect(execFileSync('ip', ['netns', 'list']).toString()).not.toContain(namespace);
    expect(existsSync(dir)).toBe(false);
  });
});
