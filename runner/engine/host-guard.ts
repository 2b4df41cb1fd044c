import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Logger } from '../../services/core/log.js';
import { BRIDGE_PREFIX } from '../../services/contract/runner/copy-labels.js';

const run = promisify(execFile);

// An internal network has no route out, but the host itself sits on every bridge as its gateway:
// a copy could open any port the host listens on at 0.0.0.0 (moby#21990). And the host forwards
// between interfaces, so another container with a route could reach a copy. Three rules match
// every copy bridge by its name (`rc…`) and close both:
//   INPUT   new connections from a copy bridge: rejected. The host's own connections to a copy
//           (the runner's probes, the proxy) are answered as established, so they still work;
//   FORWARD anything into or out of a copy bridge: dropped.
// Installing them is idempotent (checked with -C first); runners sharing a host share the rules.

const bridges = `${BRIDGE_PREFIX}+`;
export const GUARD_RULES: string[][] = [
  ['INPUT', '-i', bridges, '-m', 'conntrack', '--ctstate', 'NEW', '-j', 'REJECT'],
  ['FORWARD', '-i', bridges, '-j', 'DROP'],
  ['FORWARD', '-o', bridges, '-j', 'DROP'],
];

async function ipt(args: string[]): Promise<boolean> {
  try {
    await run('iptables', ['-w', '5', ...args]);
    return true;
  } catch {
    return false;
  }
}

/** Installs the guard; false when it was not (off, or auto without root or iptables). */
export async function installHostGuard(mode: 'auto' | 'on' | 'off', log: Logger): Promise<boolean> {
  if (mode === 'off') return false;
  const able = process.platform === 'linux' && process.getuid?.() === 0 && (await ipt(['-S', 'INPUT']));
  if (!able) {
    if (mode === 'on') throw new Error('RUNNER_HOST_GUARD=on needs root and iptables');
    log.warn('host guard not installed (needs root and iptables): copies can reach ports the host opens on all addresses');
    return false;
  }
  for (const [chain, ...rule] of GUARD_RULES) {
    if (await ipt(['-C', chain, ...rule])) continue;
    // At the top of the chain, ahead of the engine's own accept rules.
    if (!(await ipt(['-I', chain, '1', ...rule]))) throw new Error(`iptables refused: ${chain} ${rule.join(' ')}`);
  }
  return true;
}
