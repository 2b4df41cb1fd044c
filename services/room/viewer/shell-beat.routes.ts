import type { FastifyRequest } from 'fastify';
import type { BeatBody } from '@demo-rooms/contract';
import { hashSecret, isUuid } from '../../core/infra/ids.js';
import type { RoomEvent } from '../../data/room-events.sql.js';
import { seenWithin, sessionByToken, type RoomSessionRow } from '../../data/room-sessions.sql.js';
import { endVisit, recordBeat } from '../../data/visits.sql.js';
import { beatBatcher } from './beat-batcher.js';
import { coarseDeviceOf } from './coarse-device.js';
import type { RoomEvidence } from './room-evidence.js';
import { tokenIn } from './room-cookies.js';
import type { ShellGuard } from './shell-guard.js';
import type { ShellHandlers } from './shell-routes.js';
import type { ViewerDeps } from './room-entry.routes.js';

// The time beacon and leaving: the visible seconds the shell counted, by app or page, and the
// tab's comings and goings.

/**
 * A viewer who left hands their copy back, unless they are back within a few seconds (a
 * reload leaves and enters at once, and should find their copy as they left it).
 */
const releaseSeconds = 20;

export function beatHandlers(
  deps: ViewerDeps,
  evidence: RoomEvidence,
  shellSession: ShellGuard,
): Pick<ShellHandlers, 'shellBeat' | 'shellLeave'> {
  const { sql, runner, log } = deps;

  /** A beat's seconds, as credited to the visit, and the tab's comings and goings, as events. */
  async function beatWithEvents(session: RoomSessionRow, req: FastifyRequest, beat: BeatBody) {
    const { visitId, credited, late } = await recordBeat(sql, session, beat.time, Boolean(beat.shown));
    const events: RoomEvent[] = Object.entries(credited).map(([subject, seconds]) => ({ kind: 'time', subject, seconds }));
    if (beat.shown) events.unshift({ kind: 'shown' });
    // The leave's straggler: its page is gone, and the leave already said so.
    if (beat.hidden && !late) events.push({ kind: 'hidden' });
    await evidence.events(session, req, events, visitId ?? session.visitId);
  }

  function releaseLater(sessionId: string) {
    setTimeout(async () => {
      try {
        if (!(await seenWithin(sql, sessionId, releaseSeconds))) await runner.leave(sessionId);
      } catch (err) {
        log.warn({ err, sessionId }, 'could not hand back a copy; the idle culler will');
      }
    }, releaseSeconds * 1000).unref();
  }

  // The beacon, every few seconds from every viewer (the shell's flushMs): written in batches
  // with other viewers' beats (beat-batcher.ts), the session's token checked there. A beat the
  // batch leaves alone (a new visit to start, a preview, an unknown session) takes the one-by-one
  // path. Its row's guard checks only the origin; a beat that does not fit is refused only once
  // its session is found (shell-routes.ts).
  const beats = beatBatcher(sql);
  return {
    async shellBeat({ params: { sessionId }, body: beat, req, reply }) {
      const token = tokenIn(req, sessionId);
      const batched =
        token && isUuid(sessionId) && token.length <= 200
          ? await beats.add({
              sessionId,
              tokenHash: hashSecret(token),
              time: beat.time,
              shown: Boolean(beat.shown),
              hidden: Boolean(beat.hidden),
              device: coarseDeviceOf(req.headers['user-agent']),
            })
          : 'alone';
      if (batched === 'alone') {
        const session = await shellSession(req, reply);
        if (!session) return reply;
        if (!session.preview) await beatWithEvents(session, req, beat);
      }
      // The shell's heartbeat is activity too: a viewer reading a page keeps their copy awake.
      if (beat.copy) runner.activity(sessionId).catch(() => {});
      return { ok: true };
    },

    async shellLeave({ session, body: beat, req }) {
      if (!session.preview) {
        if (beat) await beatWithEvents(session, req, beat);
        await evidence.events(session, req, [{ kind: 'leave' }]);
        await endVisit(sql, (await sessionByToken(sql, session.id, tokenIn(req, session.id))) ?? session);
      }
      if (beat?.copy) releaseLater(session.id);
      return { ok: true };
    },
  };
}
