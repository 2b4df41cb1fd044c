import type Docker from 'dockerode';
import { LABEL, bridgeName, networkName } from '@demo-rooms/contract/runner';
import type { Limit } from '../limit.js';
import { EngineError } from '../copy-engine.js';
import { codeOf, dial, gone } from './docker-calls.js';
import { pickSubnet } from './subnets.js';

// One network per copy: the copy is alone on it, so it cannot see another copy, and the host
// reaches it at its own address without publishing a port (subnets.ts).

export interface NetworkDeps {
  docker: Docker;
  limit: Limit;
  kind(): Promise<'podman' | 'docker'>;
}

/**
 * An internal network (no route out) for one copy, with its own /29 and its own bridge, and no
 * DNS server: podman's aardvark-dns would forward any name upstream, a way out by DNS. Retries
 * on a subnet another network took.
 */
export async function createNetwork(d: NetworkDeps, copyId: string, labels: Record<string, string>, pool: string): Promise<string> {
  const name = networkName(copyId);
  const flavour = await d.kind();
  for (let attempt = 0; ; attempt++) {
    const { subnet, gateway } = pickSubnet(pool);
    try {
      await d.limit(async () => {
        if (flavour === 'podman') {
          await dial(d.docker, 'POST', '/v4.0.0/libpod/networks/create', {
            name,
            driver: 'bridge',
            internal: true,
            dns_enabled: false,
            labels,
            network_interface: bridgeName(copyId),
            subnets: [{ subnet, gateway }],
          });
        } else {
          await d.docker.createNetwork({
            Name: name,
            Driver: 'bridge',
            Internal: true,
            Labels: labels,
            CheckDuplicate: true,
            IPAM: { Driver: 'default', Config: [{ Subnet: subnet, Gateway: gateway }] },
            Options: { 'com.docker.network.bridge.name': bridgeName(copyId), 'com.docker.network.bridge.enable_icc': 'false' },
          });
        }
      });
      return name;
    } catch (err) {
      const message = (err as Error).message ?? '';
      if (attempt < 8 && /already used|overlap|in use/i.test(message) && !/name .* already/i.test(message)) continue;
      if (/already exists|name .* already/i.test(message)) return name; // a retry of our own create
      throw new EngineError(`network: ${message}`, codeOf(err));
    }
  }
}

export async function removeNetwork(d: NetworkDeps, name: string): Promise<void> {
  try {
    await d.limit(() => d.docker.getNetwork(name).remove());
  } catch (err) {
    if (!gone(err)) throw err;
  }
}

export async function networksOf(d: NetworkDeps, runnerId: string): Promise<{ name: string; labels: Record<string, string> }[]> {
  const nets = await d.limit(() => d.docker.listNetworks({ filters: JSON.stringify({ label: [`${LABEL.runner}=${runnerId}`] }) }));
  return nets.map((n) => ({ name: n.Name, labels: n.Labels ?? {} }));
}
