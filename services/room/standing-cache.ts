import { LRUCache } from 'lru-cache';
import type { Sql } from '../core/infra/db.js';
import { sessionStanding } from '../data/room-sessions.sql.js';

// A room session's standing (room-sessions.sql.ts) is read on content requests, at most once every few
// seconds per session: a page load of fifty files costs one query, and a revoke still reaches a
// viewer already in within those seconds.

const standingMs = 3_000;

export type Standing = Awaited<ReturnType<typeof sessionStanding>>;

export function createStandingCache(sql: Sql) {
  const cache = new LRUCache<string, { standing: Standing }>({ max: 50_000, ttl: standingMs });
  return {
    async get(sessionId: string): Promise<Standing> {
      const hit = cache.get(sessionId);
      if (hit) return hit.standing;
      return this.fresh(sessionId);
    },
    /** Read now, whatever the cache holds (a copy's side just closed: was it a revoke?). */
    async fresh(sessionId: string): Promise<Standing> {
      const standing = await sessionStanding(sql, sessionId);
      cache.set(sessionId, { standing });
      return standing;
    },
  };
}

export type StandingCache = ReturnType<typeof createStandingCache>;
