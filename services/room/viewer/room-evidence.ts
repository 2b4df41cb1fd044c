import type { FastifyRequest } from 'fastify';
import type { Sql } from '../../core/infra/db.js';
import { claimLink } from '../../data/link-claims.sql.js';
import { recordEvents, type RoomEvent } from '../../data/room-events.sql.js';
import type { RoomSessionRow } from '../../data/room-sessions.sql.js';
import { coarseDeviceOf } from './coarse-device.js';
import { browserHashOf } from './room-cookies.js';

// What the room writes down of a viewer as evidence (issue 15): events, one insert per request
// however many it carries, and who claimed the link (the name and email they gave, from which
// browser). A preview writes nothing.

export function roomEvidence(sql: Sql) {
  return {
    /** The session's events, as this request saw them; `visitId` when the caller knows a fresher one. */
    async events(session: RoomSessionRow, req: FastifyRequest, events: RoomEvent[], visitId = session.visitId) {
      if (session.preview || !events.length) return;
      await recordEvents(
        sql,
        {
          workspaceId: session.workspaceId,
          projectId: session.projectId,
          linkId: session.linkId,
          sessionId: session.id,
          visitId,
          device: coarseDeviceOf(req.headers['user-agent']),
        },
        events,
      );
    },

    /** The session's claim on its link: who it says it is, now. */
    async claim(session: RoomSessionRow, req: FastifyRequest, said: { name?: string | null; email?: string | null } = {}) {
      if (session.preview || !session.linkId) return;
      await claimLink(sql, {
        linkId: session.linkId,
        sessionId: session.id,
        name: said.name ?? session.viewerName,
        email: said.email ?? session.viewerEmail,
        browserHash: browserHashOf(req),
        device: coarseDeviceOf(req.headers['user-agent']),
      });
    },
  };
}

export type RoomEvidence = ReturnType<typeof roomEvidence>;
