import { markRepliesSeen } from '../../data/comments.sql.js';
import { nextStepsOf, offeredOn } from '../../data/next-steps.sql.js';
import { recordResponse } from '../../data/responses.sql.js';
import { askEmailOnce, saveWhoYouAre } from '../../data/room-sessions.sql.js';
import { planNameOf } from '../../data/workspaces.sql.js';
import type { RoomEvidence } from './room-evidence.js';
import { viewerCommentsOf } from './voice-data.js';
import type { ShellHandlers } from './shell-routes.js';
import type { ViewerDeps } from './room-entry.routes.js';

// The viewer's voice in the room (issue 14): an answer to What happens next, a comment pinned to
// a screen (viewer-voice-comment.routes.ts), and the email the room asks for once on the first of
// either. Their rows' guard asks that the viewer said who they are first (answers and comments
// carry the name). A preview records nothing; the shell says so. Every text a viewer types is
// stored without control characters or lone surrogates (contract/storable-text.ts).

export function voiceHandlers(
  { sql }: ViewerDeps,
  evidence: RoomEvidence,
): Pick<ShellHandlers, 'shellAnswer' | 'shellEmail' | 'shellReplies' | 'shellRepliesSeen'> {
  return {
    async shellAnswer({ session, body: { step, detail }, req, reply }) {
      const offered = offeredOn(await planNameOf(sql, session.workspaceId), (await nextStepsOf(sql, session.projectId)).steps);
      if (!offered.some((s) => s.kind === step)) return reply.status(404).send({ error: 'not found' });
      if (session.preview || !session.linkId) return { recorded: false, askEmail: false };
      const kept = Object.keys(detail).length ? detail : null;
      const { response, created } = await recordResponse(sql, session, step, kept);
      if (created) await evidence.events(session, req, [{ kind: 'answer', subject: step }]);
      return { recorded: true, id: response.id, again: !created, askEmail: created && (await askEmailOnce(sql, session.id)) };
    },

    async shellEmail({ session, body }) {
      if (!session.preview) await saveWhoYouAre(sql, session.id, { email: body.email });
      return { ok: true };
    },

    async shellReplies({ session }) {
      return { comments: await viewerCommentsOf(sql, session) };
    },

    // Only comments of the session's own link: the ids come from the page, which lists that link's.
    async shellRepliesSeen({ session, body }) {
      if (!session.preview && session.linkId) await markRepliesSeen(sql, session.linkId, body.comments);
      return { ok: true };
    },
  };
}
