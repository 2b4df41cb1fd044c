import { createRunnerClient, type RunnerClient } from '../contract/runner/runner-client.js';
import type { Config } from '../core/config.js';
import type { Sql } from '../core/db.js';
import { hostById, hostOfSession, liveHosts, placeSession } from './runner-hosts.sql.js';

// The room's and the api's way to the runners (docs/runner.md, "Several runner hosts"): one
// RunnerClient whose every call goes to the host that holds the session's copy, or, for a viewer
// who has none, the host placement chooses (runner-hosts.sql.ts `placeSession`). The hosts are
// the fleet's rows in runner_hosts, each written by its own runner; nothing is configured here.
// RUNNER_URL pins one runner instead (a setup that names its runner, as compose does).

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
}

export type RunnerFleet = ReturnType<typeof createRunnerFleet>;

export function createRunnerFleet(sql: Sql, opts: FleetOptions) {
  // One client per API address: a host that re-registers at a new address gets a new one.
  const clients = new Map<string, RunnerClient>();
  const clientAt = (baseUrl: string) => {
    let c = clients.get(baseUrl);
    if (!c) clients.set(baseUrl, (c = createRunnerClient({ baseUrl, appSecret: opts.appSecret })));
    return c;
  };
  const live = () => liveHosts(sql, opts.fleet, opts.lostS);

  /** The client of one host by its id (RUNNER_ID), live or not. */
  async function runnerClientOf(hostId: string): Promise<RunnerClient> {
    const h = await hostById(sql, hostId);
    return clientAt(h?.apiUrl ?? opts.fallbackUrl);
  }

  /** Where a viewer entering goes: placement (the session's host first). */
  async function placed(sessionId: string, buildId: string): Promise<RunnerClient> {
    const id = await placeSession(sql, { fleet: opts.fleet, lostS: opts.lostS, sessionId, buildId });
    return id ? runnerClientOf(id) : clientAt(opts.fallbackUrl);
  }

  /**
   * Where the session's other calls go: the host of its copy while that host is live; else any
   * live host (every runner answers a session's view from the database, and a lost host's copies
   * read as `gone: host-lost` once a survivor has settled them).
   */
  async function holding(sessionId: string): Promise<RunnerClient> {
    const [held, hosts] = await Promise.all([hostOfSession(sql, sessionId), live()]);
    const h = hosts.find((x) => x.id === held) ?? hosts[0];
    return clientAt(h?.apiUrl ?? opts.fallbackUrl);
  }

  const client: RunnerClient = {
    enter: async (sessionId, body, waitMs) => (await placed(sessionId, body.buildId)).enter(sessionId, body, waitMs),
    copy: async (sessionId, wait) => (await holding(sessionId)).copy(sessionId, wait),
    activity: async (sessionId) => (await holding(sessionId)).activity(sessionId),
    calls: async (sessionId, calls) => (await holding(sessionId)).calls(sessionId, calls),
    leave: async (sessionId) => (await holding(sessionId)).leave(sessionId),
    /** Every live host loads the image and fills its warm pool; the first answer is told. */
    prepare: async (buildId, waitMs) => {
      const hosts = await live();
      const targets = hosts.length ? hosts.map((h) => clientAt(h.apiUrl)) : [clientAt(opts.fallbackUrl)];
      const replies = await Promise.allSettled(targets.map((c) => c.prepare(buildId, waitMs)));
      const ok = replies.find((r) => r.status === 'fulfilled');
      if (ok) return ok.value;
      throw (replies[0] as PromiseRejectedResult).reason;
    },
  };
  return { client, runnerClientOf };
}
