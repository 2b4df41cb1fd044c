import { randomBytes } from 'node:crypto';
import { createRunnerFleet } from '../../../services/data/runner-fleet.js';
import type { FleetClient } from '@demo-rooms/contract/runner';
import { createSql, type Sql } from '../../../services/core/infra/db.js';
import { testEnv } from '../services.js';
import { dataplaneHook } from './host-dataplane.js';
import { startRunnerHost, type HostHook, type RunnerHost } from './runner-host.js';
import { createTeardown } from './teardown.js';

// Several runner hosts on one machine (issue 31): each in its own network namespace with its own
// engine and runner (runner-host.ts), registered in a fleet of the test's own, and the fleet
// client the room and the api use, in the default namespace. Needs root (ip netns, nsenter).

export interface Fleet {
  fleet: string;
  hosts: RunnerHost[];
  sql: Sql;
  /** The room's and the api's client: placement and the session's host (services/contract/runner/fleet-client.ts). */
  runners: FleetClient;
  /** Which host holds the session's copy now (runner_copies.runner_id of its copy not ended). */
  hostOf(sessionId: string): Promise<string | undefined>;
  /** The room's COPY_TOKEN_KEY, which every host's data plane checks (with `dataplanes`). */
  copyTokenKey: string;
  close(): Promise<void>;
}

export const canRunHosts = () => process.getuid?.() === 0 && process.platform === 'linux';

export async function startFleet(o: {
  hosts: { name: string; slots: number; hook?: HostHook; hookTimeoutMs?: number }[];
  lostS: number;
  /** Each host runs its own data plane (host-dataplane.ts), its copy origin; the hosts' own hooks then are not run. */
  dataplanes?: { frameAncestors: string };
}): Promise<Fleet> {
  const td = createTeardown();
  const fleet = `h${randomBytes(4).toString('hex')}`;
  const env = testEnv();
  const sql = createSql(env.DATABASE_URL, { max: 4 });
  td.add('database pool', () => sql.end({ timeout: 2 }));
  const slot = randomBytes(2).readUInt16BE(0) % 8_000;
  const copyTokenKey = randomBytes(32).toString('hex');
  const dataplane = o.dataplanes ? dataplaneHook({ tokenKey: copyTokenKey, frameAncestors: o.dataplanes.frameAncestors }) : undefined;
  try {
    const hosts: RunnerHost[] = [];
    // One at a time: two engines loading their first image at once only slow each other down.
    for (const [i, h] of o.hosts.entries())
      hosts.push(
        await startRunnerHost(td, {
          name: h.name,
          fleet,
          slot: slot + i,
          slots: h.slots,
          hook: dataplane ?? h.hook,
          hookTimeoutMs: h.hookTimeoutMs,
          env: { RUNNER_HOST_LOST_S: String(o.lostS) },
        }),
      );
    // The fleet's picture read fresh for every call (the room reads it at most once a second): these
    // tests place viewers one after another and check exactly where each went.
    const runners = createRunnerFleet(sql, {
      fleet,
      lostS: o.lostS,
      appSecret: env.APP_SECRET,
      fallbackUrl: hosts[0].apiUrl,
      pictureMs: 0,
    });
    return {
      fleet,
      hosts,
      sql,
      runners,
      copyTokenKey,
      async hostOf(sessionId) {
        const [c] = await sql<{ runnerId: string }[]>`
          select runner_id from runner_copies where session_id = ${sessionId} and state <> 'ended'`;
        return c?.runnerId;
      },
      async close() {
        const failed = await td.run();
        if (failed.length) console.error(`two-host teardown: ${failed.join('; ')}`);
      },
    };
  } catch (err) {
    await td.run();
    throw err;
  }
}
