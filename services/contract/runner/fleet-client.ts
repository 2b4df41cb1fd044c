import { type PictureHost, placeOn } from './fleet-placement.js';
import { createRunnerClient, type RunnerClient } from './runner-client.js';

// The room's and the api's way to the runners (docs/runner.md, "Several runner hosts"): one
// RunnerClient whose every call goes to the host that holds the session's copy, or, for a viewer
// who has none, the host placement chooses (fleet-placement.ts). The hosts come from the
// fleet's picture, read through `FleetSources` (the runner_hosts rows each runner writes:
// services/data/runner-fleet.ts wires them) at most once per `pictureMs`, so a crowd's entries
// cost one read of the session's host each, not a count of every host's copies each.

export interface FleetSources {
  /** The fleet's live hosts now, with their free slots and pools. */
  picture(): Promise<PictureHost[]>;
  /** The host of the session's copy not ended, else of its latest one; undefined if it never had one. */
  hostOfSession(sessionId: string): Promise<string | undefined>;
}

export interface FleetClientOptions {
  appSecret: string;
  /** Where calls go while no host is live (a platform still starting: the runner on this machine). */
  fallbackUrl: string;
  /** How old a picture may be before it is read again (ms). */
  pictureMs?: number;
}

export type FleetClient = ReturnType<typeof createFleetClient>;

export function createFleetClient(sources: FleetSources, opts: FleetClientOptions) {
  const pictureMs = opts.pictureMs ?? 1_000;
  // One client per API address: a host that re-registers at a new address gets a new one.
  const clients = new Map<string, RunnerClient>();
  const clientAt = (baseUrl: string) => {
    let c = clients.get(baseUrl);
    if (!c) clients.set(baseUrl, (c = createRunnerClient({ baseUrl, appSecret: opts.appSecret })));
    return c;
  };

  let hosts: PictureHost[] = [];
  let readAt = Number.NEGATIVE_INFINITY;
  let reading: Promise<PictureHost[]> | null = null;
  /** The picture, read again when older than pictureMs; one read at a time however many ask. */
  function picture(): Promise<PictureHost[]> {
    if (performance.now() - readAt < pictureMs) return Promise.resolve(hosts);
    reading ??= sources
      .picture()
      .then((fresh) => {
        hosts = fresh;
        readAt = performance.now();
        return fresh;
      })
      .finally(() => {
        reading = null;
      });
    return reading;
  }

  /** Where a viewer entering goes (the session's own host while live, else placement), and whether the session never had a copy. */
  async function placed(sessionId: string, ask: { buildId: string; workspaceId: string }): Promise<{ to: RunnerClient; fresh: boolean }> {
    const [held, live] = await Promise.all([sources.hostOfSession(sessionId), picture()]);
    const h = placeOn(live, ask, held);
    return { to: clientAt(h?.apiUrl ?? opts.fallbackUrl), fresh: held === undefined };
  }

  /**
   * Where the session's other calls go: the host of its copy while that host is live; else any
   * live host (every runner answers a session's view from the database, and a lost host's copies
   * read as `gone: host-lost` once a survivor has settled them).
   */
  async function holding(sessionId: string): Promise<RunnerClient> {
    const [held, live] = await Promise.all([sources.hostOfSession(sessionId), picture()]);
    const h = live.find((x) => x.id === held) ?? live[0];
    return clientAt(h?.apiUrl ?? opts.fallbackUrl);
  }

  const client: RunnerClient = {
    // A session with no copy ever is told so: its host need not read it again (runner-api.schema.ts EnterBody.fresh).
    enter: async (sessionId, body, waitMs) => {
      const { to, fresh } = await placed(sessionId, body);
      return to.enter(sessionId, fresh ? { ...body, fresh } : body, waitMs);
    },
    copy: async (sessionId, wait) => (await holding(sessionId)).copy(sessionId, wait),
    activity: async (sessionId) => (await holding(sessionId)).activity(sessionId),
    calls: async (sessionId, calls) => (await holding(sessionId)).calls(sessionId, calls),
    leave: async (sessionId) => (await holding(sessionId)).leave(sessionId),
    /** Every live host loads the image and fills its warm pool; the first answer is told. */
    prepare: async (buildId, waitMs) => {
      const live = await picture();
      const targets = live.length ? live.map((h) => clientAt(h.apiUrl)) : [clientAt(opts.fallbackUrl)];
      const replies = await Promise.allSettled(targets.map((c) => c.prepare(buildId, waitMs)));
      const ok = replies.find((r) => r.status === 'fulfilled');
      if (ok) return ok.value;
      throw (replies[0] as PromiseRejectedResult).reason;
    },
  };
  return { client };
}
