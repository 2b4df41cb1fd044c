import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Logger } from '../../../services/core/infra/log.js';
import type { HostGuardState } from '../host-engine.js';
import { BRIDGE_PREFIX } from '@demo-rooms/contract/runner';

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

export type GuardMode = 'auto' | 'on' | 'off';

/** What the runner does about the guard: install it, and whether copies may start. */
export interface GuardDecision {
  install: boolean;
  copies: boolean;
  /** Logged at start and answered to every enter (503), and by /readyz, while copies are refused. */
  refusal?: string;
  /** The runner does not start at all. */
  fatal?: string;
  /** Logged loudly at start: copies run without the guard because an operator said so. */
  warning?: string;
}

/**
 * The guard fails closed: without it a copy reaches every port the host serves on its bridges,
 * so a runner that needs it (auto, on) and cannot install it starts no copy. Only an explicit
 * RUNNER_HOST_GUARD=off runs copies unguarded.
 */
export function guardDecision(mode: GuardMode, able: boolean): GuardDecision {
  if (mode === 'off') {
    return {
      install: false,
      copies: true,
      warning: 'RUNNER_HOST_GUARD=off: copies run WITHOUT the host guard and can reach every port this host serves on all addresses',
    };
  }
  if (able) return { install: true, copies: true };
  if (mode === 'on') return { install: false, copies: false, fatal: 'RUNNER_HOST_GUARD=on needs root and iptables' };
  return {
    install: false,
    copies: false,
    refusal:
      'host guard not installed (needs root and iptables): this runner starts no copies; run it as root with iptables, or set RUNNER_HOST_GUARD=off to accept the risk',
  };
}

/** Installs the guard as `mode` decides (RUNNER_IPTABLES names the iptables command); throws when it must and cannot. */
export async function installHostGuard(mode: GuardMode, log: Logger, iptables = 'iptables'): Promise<HostGuardState> {
  const ipt = async (args: string[]): Promise<boolean> => {
    try {
      await run(iptables, ['-w', '5', ...args]);
      return true;
    } catch {
      return false;
    }
  };
  // iptables itself refuses without the privileges (root, or CAP_NET_ADMIN): listing a chain is the test.
  const able = mode !== 'off' && process.platform === 'linux' && (await ipt(['-S', 'INPUT']));
  const decision = guardDecision(mode, able);
  if (decision.fatal) throw new Error(decision.fatal);
  if (decision.warning) log.warn(decision.warning);
  if (decision.refusal) log.error(decision.refusal);
  if (!decision.install) return { installed: false, copies: decision.copies, refusal: decision.refusal ?? null };
  for (const [chain, ...rule] of GUARD_RULES) {
    if (await ipt(['-C', chain, ...rule])) continue;
    // At the top of the chain, ahead of the engine's own accept rules.
    if (!(await ipt(['-I', chain, '1', ...rule]))) throw new Error(`iptables refused: ${chain} ${rule.join(' ')}`);
  }
  return { installed: true, copies: true, refusal: null };
}
