import type { FastifyRequest } from 'fastify';
import { projectById } from '../../data/projects.sql.js';
import { saveWhoYouAre, type RoomSessionRow } from '../../data/room-sessions.sql.js';
import { arriveInVisit } from '../../data/visits.sql.js';
import type { RoomEvidence } from './room-evidence.js';
import type { ShellHandlers } from './shell-routes.js';
import { seatsOf } from './viewer-admission.js';
import type { ViewerDeps } from './room-entry.routes.js';

// The viewer arrives: the shell's first word as it starts, and who-are-you. Cookies are
// SameSite=Lax and every POST must come from this origin (the rows' guard).

export function arrivalHandlers({ sql }: ViewerDeps, evidence: RoomEvidence): Pick<ShellHandlers, 'shellHello' | 'shellArrive'> {
  /** Arrival (arriveInVisit); true when the room had no seat left for the session. */
  async function arrive(session: RoomSessionRow, req: FastifyRequest): Promise<boolean> {
    const { visitId, started, full } = await arriveInVisit(sql, session, await seatsOf(sql, session.workspaceId));
    if (started) await evidence.events(session, req, [{ kind: 'entry' }], visitId);
    return full;
  }

  return {
    async shellHello({ session, body, req, reply }) {
      const project = await projectById(sql, session.projectId);
      if (project?.requireEmail && !body.email && !session.viewerEmail) {
        return reply.status(400).send({ error: 'invalid', issues: [{ path: 'email', message: 'this demo asks for your email' }] });
      }
      const named = await saveWhoYouAre(sql, session.id, body);
      const full = await arrive(named, req);
      await evidence.claim(named, req);
      return full ? { ok: true, full } : { ok: true };
    },

    // A browser really ran the room (a link-preview fetch or a mail scanner never gets here). The
    // session takes its seat, the visit starts, the link is opened, the entry recorded. With
    // every seat taken, `full`: the shell reloads the address, which then says Demo full (and
    // counts the turn-away).
    async shellArrive({ session, req }) {
      if (await arrive(session, req)) return { ok: false, full: true };
      if (session.viewerName) await evidence.claim(session, req);
      return { ok: true };
    },
  };
}
