import type { IncomingHttpHeaders } from 'node:http';
import { LRUCache } from 'lru-cache';
import type { Sql } from '../../core/infra/db.js';
import { copyOriginOfCopy } from '../../data/runner-hosts.sql.js';
import { copyCookie } from './copy-token.js';
import { viewCookie } from '../content/view-token.js';
import { withoutCookies } from './copy-proxy.js';

// The room's way to a copy, the only one (docs/runner.md, "One way to a copy"): its host's data
// plane. A copy's address is on its host's engine network, which stays the runner's; each host
// registers its data plane as its copy origin (RUNNER_COPY_ORIGIN, runner_hosts.copy_origin).
// What the room carries itself for a copy (page loads, requests without a token, WebSockets opened
// through it) goes there with a fresh copy token of the room's, so HAProxy takes it straight to
// the copy. A copy's host never changes: its origin is cached per copy.

/**
 * Set on every request the room sends to a data plane. A hop the data plane cannot route it answers
 * itself (503, haproxy.cfg.tmpl); one that comes back anyway (a data plane of an older config) is not sent again.
 */
export const roomHopHeader = 'x-pp-room-hop';

export function createCopyHops(sql: Sql) {
  // Copy id → its host's data plane (host, port), or null for none.
  const origins = new LRUCache<string, { value: { host: string; port: number } | null }>({ max: 50_000, ttl: 10 * 60_000 });

  return {
    /** Where the room sends the copy's traffic: its host's data plane; null when the host has none (no way to the copy). */
    async dataplaneOf(copyId: string): Promise<{ host: string; port: number } | null> {
      const hit = origins.get(copyId);
      if (hit) return hit.value;
      const origin = await copyOriginOfCopy(sql, copyId);
      const url = origin ? new URL(origin) : null;
      const value = url ? { host: url.hostname, port: Number(url.port) || 80 } : null;
      origins.set(copyId, { value });
      return value;
    },

    /**
     * The request's headers on the hop: the viewer's cookies without the room's two, plus the room's
     * fresh copy token; never taken for a page load (the data plane would hand it back to the room).
     */
    upstreamHeaders(headers: IncomingHttpHeaders, token: string): Record<string, string> {
      const theirs = withoutCookies(headers.cookie, [viewCookie, copyCookie]);
      return {
        cookie: theirs ? `${theirs}; ${copyCookie}=${token}` : `${copyCookie}=${token}`,
        ...(headers.upgrade ? {} : { 'sec-fetch-dest': 'empty' }),
        [roomHopHeader]: '1',
      };
    },

    /** A request that came back from a data plane: the copy had no route there (stopped, revoked since). */
    cameBack: (headers: IncomingHttpHeaders) => headers[roomHopHeader] !== undefined,
  };
}
