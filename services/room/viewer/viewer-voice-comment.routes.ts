import { randomUUID } from 'node:crypto';
import { Refusal } from '../../core/rules/errors.js';
import { ImageRefused, reencodeImage, screenshotRules } from '../../core/rules/images.js';
import type { Storage } from '../../core/infra/storage.js';
import { captureBlocked } from '../../data/capture-blocks.sql.js';
import { addComment, commentsInLastHour, screenshotKey } from '../../data/comments.sql.js';
import { askEmailOnce, sessionStanding } from '../../data/room-sessions.sql.js';
import { sessionLabelOf } from '../origins.js';
import type { RoomEvidence } from './room-evidence.js';
import type { ShellHandlers } from './shell-routes.js';
import type { ViewerDeps } from './room-entry.routes.js';

// A viewer's comment, pinned to a point or an area of a screen, with the picture the frame's
// capture agent took (issue 14).

/**
 * Room for the picture as base64 (4 bytes per 3) and the words around it, with an eighth to
 * spare so a picture somewhat too large is told so (422 file) rather than cut off (413), and no
 * more: the body is held whole in memory while it is parsed.
 */
export const commentBodyLimit = (screenshotMaxBytes: number) => Math.ceil(1.5 * screenshotMaxBytes) + 64 * 1024;

export function commentHandlers(deps: ViewerDeps & { storage: Storage }, evidence: RoomEvidence): Pick<ShellHandlers, 'shellComment'> {
  const { sql, config } = deps;
  return {
    async shellComment({ session, body: c, req, reply }) {
      const standing = await sessionStanding(sql, session.id);
      const manifest = standing?.manifest ?? null;
      if (!standing || !manifest?.apps.some((a) => a.id === c.appId)) return reply.status(404).send({ error: 'not found' });

      // What costs nothing comes before the picture is read (security-3 H1): a preview keeps no
      // comment, so its picture is never decoded; a session past its hour's comments is told so.
      if (session.preview) return { recorded: false, askEmail: false };
      const recent = await commentsInLastHour(sql, session.id);
      if (recent.count >= config.COMMENTS_PER_SESSION_HOUR) {
        const retryAfter = Math.max(1, recent.retryAfter);
        reply.header('retry-after', String(retryAfter));
        return reply
          .status(429)
          .send({ error: `at most ${config.COMMENTS_PER_SESSION_HOUR} comments an hour`, reason: 'rate', retryAfter });
      }

      // The picture is judged by its bytes and re-encoded before anything is written.
      let picture = null;
      if (c.screenshot) {
        try {
          // Viewers take turns at the decode slot by address: a new session is free, an address is not.
          picture = await reencodeImage(Buffer.from(c.screenshot.data, 'base64'), screenshotRules(config.SCREENSHOT_MAX_BYTES), req.ip);
        } catch (err) {
          if (err instanceof Refusal && err.status === 503)
            return reply.status(503).header('retry-after', String(err.extra.retryAfter)).send(err.body());
          if (!(err instanceof ImageRefused)) throw err;
          return reply.status(422).send({ error: 'refused: file', reason: 'file', detail: `the screenshot: ${err.message}` });
        }
      }
      // A picture of one colour all over (a heavy page the capture could not draw) is no picture.
      const blank = picture?.blank === true;
      if (blank) picture = null;
      // A frame that never answered may have had the agent stopped by the app's own policy.
      const label = sessionLabelOf(standing, session.id);
      let note = picture ? null : blank ? 'blank' : (c.screenshotNote ?? 'no-answer');
      if (note === 'no-answer' && (await captureBlocked(sql, session.id, label))) note = 'blocked';

      const id = randomUUID();
      const key = screenshotKey(session.projectId, id);
      if (picture) await deps.storage.put(key, picture.bytes, { contentType: picture.type, size: picture.bytes.length });
      try {
        const comment = await addComment(sql, session, {
          id,
          buildId: standing.liveBuildId,
          appId: c.appId,
          screen: c.screen,
          body: c.body,
          position: c.position,
          area: c.area,
          device: c.device,
          screenshot: picture
            ? {
                key,
                type: picture.type as 'image/png' | 'image/webp',
                width: picture.width,
                height: picture.height,
                bytes: picture.bytes.length,
              }
            : null,
          screenshotNote: note,
        });
        await evidence.events(session, req, [{ kind: 'comment', subject: c.appId }]);
        return {
          recorded: true,
          comment: {
            id: comment.id,
            appId: comment.appId,
            screen: comment.screen,
            body: comment.body,
            createdAt: comment.createdAt.toISOString(),
            hasScreenshot: Boolean(picture),
            screenshotNote: note,
          },
          askEmail: await askEmailOnce(sql, session.id),
        };
      } catch (err) {
        // Nothing half-written: a picture whose comment could not be stored goes too.
        if (picture) await deps.storage.deletePrefix(key).catch(() => {});
        throw err;
      }
    },
  };
}
