import { copyOriginKey } from '../../services/core/copy-origin-key.js';
import { liveCopiesOf } from '../../services/data/copies.sql.js';
import { sessionStandings } from '../../services/data/room-sessions.sql.js';
import type { RunnerContext } from '../runner-context.js';
import { activitySince } from './activity.js';
import { refusalsCounter } from './refusals.js';
import { dataplaneRoutes, type Route } from './routes.js';

// Keeps this host's data plane (docs/runner.md, "Data plane") in step with the runner's copies:
// a route for every running copy whose viewer session still stands (link not revoked or
// reissued, project not paused by its owner, taken down or deleted, workspace not suspended: the
// room's own test, standing-cache.ts), none for any other. The whole map is
// replaced at start; after that it is compared with the records whenever a session's copy changes
// in this process (ready, paused, stopped, ended: every change wakes that session's waiters) and
// every half second (changes made elsewhere: a revoke, a takedown; one query for all standings). A route that goes closes its
// copy's open connections at once. The same tick reads which copies viewers used on the direct
// path and tells the idle culler, as the room's proxy does for the requests it carries, and adds
// what the data plane's limits refused to the runner's metrics (refusals.ts).

export interface DataplaneSettings {
  adminSocket: string;
  routesMap: string;
}

export function createRouteSync(ctx: RunnerContext, dataplane: DataplaneSettings, onActivity: (sessionId: string) => Promise<unknown>) {
  const routes = dataplaneRoutes(dataplane);
  const used = activitySince();
  const countRefusals = refusalsCounter();
  let pending: Promise<void> | null = null;
  let again = false;

  async function wanted(): Promise<Route[]> {
    const rows = (await liveCopiesOf(ctx.sql, ctx.settings.runnerId)).filter(
      (r) => r.state === 'running' && r.sessionId && r.host && r.port,
    );
    // One query for every session's standing: the sync runs every half second.
    const standings = await sessionStandings(
      ctx.sql,
      rows.map((r) => r.sessionId!),
    );
    const out: Route[] = [];
    for (const r of rows) {
      // As the room's mayUseCopy: the session stands, for this project, and the owner has not paused the room.
      const standing = standings.get(r.sessionId!);
      if (standing && standing.projectId === r.projectId && standing.kind === 'container' && !standing.ownerPaused)
        out.push({ sessionId: r.sessionId!, host: r.host!, port: r.port!, copyId: r.id });
    }
    return out;
  }

  async function syncOnce(): Promise<void> {
    const want = new Map((await wanted()).map((r) => [copyOriginKey(r.sessionId), r]));
    const have = await routes.list();
    for (const [key, value] of have) {
      const r = want.get(key);
      if (!r || value !== `${r.host}:${r.port}|${r.copyId}`) await routes.removeKey(key);
    }
    for (const [key, r] of want) if (have.get(key) !== `${r.host}:${r.port}|${r.copyId}`) await routes.set(r);
  }

  /** One sync at a time; asked during one, another follows it. */
  function sync(): Promise<void> {
    if (pending) {
      again = true;
      return pending;
    }
    pending = syncOnce()
      .catch((err) => ctx.log.error({ err }, 'data plane routes not synced'))
      .finally(() => {
        pending = null;
        if (again) {
          again = false;
          void sync();
        }
      });
    return pending;
  }

  async function reportActivity(): Promise<void> {
    // The same few seconds suit the limits' refusals (dataplane_refused_total).
    await countRefusals(dataplane.adminSocket).catch((err) => ctx.log.warn({ err }, 'data plane refusals not read'));
    const keys = new Set(await used(dataplane.adminSocket));
    if (!keys.size) return;
    for (const r of await wanted()) if (keys.has(copyOriginKey(r.sessionId))) await onActivity(r.sessionId);
  }

  return {
    /** The whole map from the records, at the runner's start. */
    async start(): Promise<void> {
      await routes.replaceAll(await wanted());
    },
    sync,
    /** Routes against the records (a revoke made elsewhere shuts its copy's connections within this tick). */
    tick: sync,
    /** Which copies viewers used on the direct path, for the idle culler (a few seconds is plenty). */
    reportActivity,
  };
}

export type RouteSync = ReturnType<typeof createRouteSync>;
