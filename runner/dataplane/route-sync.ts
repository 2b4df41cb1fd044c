import { copyOriginKey } from '../../services/core/rules/copy-origin-key.js';
import { liveCopiesOf } from '../../services/data/copies.sql.js';
import { sessionStandings } from '../../services/data/room-sessions.sql.js';
import type { RunnerContext } from '../service/runner-context.js';
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

/** A route's value in the map: `ip:port|copyId` (routes.ts). */
const routeText = (r: Route) => `${r.host}:${r.port}|${r.copyId}`;

export function createRouteSync(ctx: RunnerContext, dataplane: DataplaneSettings, onActivity: (sessionId: string) => Promise<unknown>) {
  const routes = dataplaneRoutes(dataplane);
  const used = activitySince();
  const countRefusals = refusalsCounter();
  let pending: Promise<void> | null = null;
  /** The sync after the running one, shared by everyone who asked while it ran. */
  let next: Promise<void> | null = null;
  /** What HAProxy held after the last sync (key → `ip:port|copyId`). */
  let held = new Map<string, string>();

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
      if (!r || value !== routeText(r)) await routes.removeKey(key);
    }
    for (const [key, r] of want) if (have.get(key) !== routeText(r)) await routes.set(r);
    held = new Map([...want].map(([key, r]) => [key, routeText(r)]));
  }

  /**
   * One sync at a time. Resolves once a sync that began after the call has ended: asked during
   * one, the caller waits for the one after it, which everyone who asked meanwhile shares.
   */
  function sync(): Promise<void> {
    if (!pending) {
      pending = syncOnce()
        .catch((err) => ctx.log.error({ err }, 'data plane routes not synced'))
        .finally(() => (pending = null));
      return pending;
    }
    next ??= pending.then(() => {
      next = null;
      return sync();
    });
    return next;
  }

  /**
   * Resolves once the data plane holds the route of a copy the records say runs, so that a viewer
   * told "running" finds it (a long-poll or a warm claim can read the state before the sync that
   * follows every change has set it). One sync at most: a copy it did not route (its standing
   * ended meanwhile) is the room's to tell.
   */
  async function routed(sessionId: string, copyId: string): Promise<void> {
    if (held.get(copyOriginKey(sessionId))?.endsWith(`|${copyId}`)) return;
    await sync();
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
      const all = await wanted();
      await routes.replaceAll(all);
      held = new Map(all.map((r) => [copyOriginKey(r.sessionId), routeText(r)]));
    },
    sync,
    routed,
    /** Routes against the records (a revoke made elsewhere shuts its copy's connections within this tick). */
    tick: sync,
    /** Which copies viewers used on the direct path, for the idle culler (a few seconds is plenty). */
    reportActivity,
  };
}

export type RouteSync = ReturnType<typeof createRouteSync>;
