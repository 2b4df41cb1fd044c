import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../core/infra/config.js';
import type { Sql } from '../../core/infra/db.js';
import { sessionByToken, type RoomSessionRow } from '../../data/room-sessions.sql.js';
import { tokenIn } from './room-cookies.js';

// The check every endpoint the shell calls makes first: the request came from the room's own
// page, and its cookie holds the session's token.

/** The session a shell request acts for; null when refused (the reply is sent). */
export type ShellGuard = (req: FastifyRequest, reply: FastifyReply) => Promise<RoomSessionRow | null>;

/**
 * Whether the request came from the room's own page; refused (403, the reply sent) otherwise.
 * Browsers send Origin with every POST, fetch and sendBeacon alike: a request without one did
 * not come from the room's page, and is refused like one from another origin.
 */
export function fromRoomPage(config: Config, req: FastifyRequest, reply: FastifyReply): boolean {
  if (req.headers.origin === new URL(config.publicUrl).origin) return true;
  reply.status(403).send({ error: 'role cannot', reason: 'permission', action: 'cross-origin' });
  return false;
}

export function shellGuard(deps: { config: Config; sql: Sql }): ShellGuard {
  return async (req, reply) => {
    if (!fromRoomPage(deps.config, req, reply)) return null;
    const session = await cookieSession(deps.sql, req);
    if (!session) {
      reply.status(404).send({ error: 'not found' });
      return null;
    }
    return session;
  };
}

/**
 * The session of `/room/:sessionId/…` whose token the browser's room cookie holds; null without
 * one. Alone, for GETs a page's own elements make (an image sends no Origin).
 */
export function cookieSession(sql: Sql, req: FastifyRequest): Promise<RoomSessionRow | null> {
  const { sessionId } = req.params as { sessionId: string };
  return sessionByToken(sql, sessionId, tokenIn(req, sessionId));
}
