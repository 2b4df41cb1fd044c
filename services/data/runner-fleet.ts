import { createFleetClient, type FleetClient, type FleetSources, createRunnerClient, type RunnerClient } from '@demo-rooms/contract/runner';
import type { Config } from '../core/infra/config.js';
import type { Sql } from '../core/infra/db.js';
import { groupCommit } from '../core/infra/group-commit.js';
import { fleetPicture, hostsOfSessions } from './runner-hosts.sql.js';

// The fleet client (services/contract/runner/fleet-client.ts) on this database: the fleet's
// picture and a session's host, read from runner_hosts and runner_copies. RUNNER_URL pins one
// runner instead (a setup that names its runner, as compose does).

type FleetSettings = Pick<Config, 'RUNNER_URL' | 'RUNNER_PORT' | 'RUNNER_FLEET' | 'RUNNER_HOST_LOST_S' | 'APP_SECRET'>;

/** The runner client the room and the api use: pinned to RUNNER_URL when set, else the fleet's. */
export function runnerClientFor(config: FleetSettings, sql: Sql): RunnerClient {
  if (config.RUNNER_URL) return createRunnerClient({ baseUrl: config.RUNNER_URL, appSecret: config.APP_SECRET });
  return createRunnerFleet(sql, {
    fleet: config.RUNNER_FLEET,
    lostS: config.RUNNER_HOST_LOST_S,
    appSecret: config.APP_SECRET,
    // Before any runner has beaten (a platform still starting): the runner on this machine.
    fallbackUrl: `http://127.0.0.1:${config.RUNNER_PORT}`,
  }).client;
}

export interface FleetOptions {
  fleet: string;
  lostS: number;
  appSecret: string;
  fallbackUrl: string;
  /** How old the fleet's picture may be before it is read again (ms; fleet-client.ts). */
  pictureMs?: number;
}

export function createRunnerFleet(sql: Sql, opts: FleetOptions): FleetClient {
  return createFleetClient(fleetSources(sql, opts), opts);
}

/**
 * The fleet's rows as the fleet client reads them. A crowd's sessions are looked up together
 * (group commit: those asked while one read is out go in the next), one statement for hundreds
 * of viewers instead of one each in front of the pool.
 */
export function fleetSources(sql: Sql, opts: Pick<FleetOptions, 'fleet' | 'lostS'>): FleetSources {
  const hostOf = groupCommit(async (sessionIds: string[]) => {
    const hosts = await hostsOfSessions(sql, sessionIds);
    return sessionIds.map((id) => hosts.get(id));
  });
  return { picture: () => fleetPicture(sql, opts.fleet, opts.lostS), hostOfSession: hostOf };
}
