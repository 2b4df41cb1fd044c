import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { NextStepKind } from '../../contract/resources/room-setup.js';
import { Area, Point, ScreenshotNote } from '../../contract/resources/activity.js';
import { Device } from '../../contract/common.js';
import { Refusal } from '../../core/errors.js';
import { ImageRefused, reencodeImage, screenshotRules } from '../../core/images.js';
import { storable } from '../../core/storable-text.js';
import type { Storage } from '../../core/storage.js';
import { captureBlocked } from '../../data/capture-blocks.sql.js';
import { addComment, commentsInLastHour, screenshotKey } from '../../data/comments.sql.js';
import { nextStepsOf, offeredOn } from '../../data/next-steps.sql.js';
import { recordResponse } from '../../data/responses.sql.js';
import { askEmailOnce, saveWhoYouAre, sessionStanding } from '../../data/viewer-sessions.sql.js';
import { planNameOf } from '../../data/workspaces.sql.js';
import { sessionLabelOf } from '../origins.js';
import { invalidBody, type ShellGuard } from './shell-guard.js';
import { roomEvidence } from './room-evidence.js';
import type { ViewerDeps } from './room-entry.routes.js';

// The viewer's voice in the room (issue 14): an answer to What happens next, a comment pinned to
// a screen with the picture the frame's capture agent took, and the email the room asks for once
// on the first of either. A preview records nothing; the shell says so. Every text a viewer types
// is stored without control characters or lone surrogates (core/storable-text.ts).

/** An answer that needs no words, with a line the viewer may add. */
const OptionalNote = z.object({ note: z.preprocess(storable, z.string().trim().min(1).max(2000)).optional() });

/** What each step asks of the viewer, beyond the click. */
const Detail = {
  question: z.object({ text: z.preprocess(storable, z.string().trim().min(1).max(2000)) }),
  colleague: z.object({ name: z.preprocess(storable, z.string().trim().min(1).max(80)), email: z.preprocess(storable, z.email().max(254)) }),
  meeting: z.object({ time: z.preprocess(storable, z.string().trim().min(1).max(80)).optional() }),
  yes: OptionalNote,
  later: OptionalNote,
  no: OptionalNote,
} satisfies Record<NextStepKind, z.ZodType>;

const Answer = z.object({ step: NextStepKind, detail: z.record(z.string(), z.unknown()).optional() });

const CommentBody = z.object({
  appId: z.string().min(1).max(40),
  /** The app's path inside its frame, as its page reported it. */
  screen: z.preprocess(storable, z.string().max(2000)).nullable(),
  body: z.preprocess(storable, z.string().trim().min(1, 'write a comment').max(2000, 'at most 2000 characters')),
  position: Point.nullable(),
  area: Area.nullable(),
  device: Device,
  /** The picture, base64, when the frame gave one; else why not. */
  screenshot: z.object({ type: z.enum(['image/png', 'image/webp']), data: z.base64() }).nullable(),
  screenshotNote: ScreenshotNote.exclude(['removed']).nullable(),
}).refine((c) => c.position || c.area, { message: 'pin the comment to a point or an area', path: ['position'] });

const EmailBody = z.object({ email: z.preprocess(storable, z.email().max(254)) });

export function registerViewerVoice(app: FastifyInstance, deps: ViewerDeps & { storage: Storage }, guard: ShellGuard) {
  const { sql, config } = deps;
  const evidence = roomEvidence(sql);
  /** The session, once the viewer has said who they are (answers and comments carry the name). */
  const shellSession: ShellGuard = async (req, reply) => {
    const session = await guard(req, reply);
    if (session && !session.viewerName) {
      reply.status(403).send({ error: 'who are you first', reason: 'hello' });
      return null;
    }
    return session;
  };

  app.post('/room/:sessionId/answer', async (req, reply) => {
    const session = await shellSession(req, reply);
    if (!session) return;
    const parsed = Answer.safeParse(req.body);
    if (!parsed.success) return invalidBody(reply, parsed.error);
    const { step } = parsed.data;
    const detail = Detail[step].safeParse(parsed.data.detail ?? {});
    if (!detail.success) return invalidBody(reply, detail.error, 'detail.');
    const offered = offeredOn(await planNameOf(sql, session.workspaceId), (await nextStepsOf(sql, session.projectId)).steps);
    if (!offered.some((s) => s.kind === step)) return reply.status(404).send({ error: 'not found' });
    if (session.preview || !session.linkId) return { recorded: false, askEmail: false };
    const kept = Object.keys(detail.data).length ? detail.data : null;
    const { response, created } = await recordResponse(sql, session, step, kept);
    if (created) await evidence.events(session, req, [{ kind: 'answer', subject: step }]);
    return { recorded: true, id: response.id, again: !created, askEmail: created && (await askEmailOnce(sql, session.id)) };
  });

  // Room for the picture as base64 (4 bytes per 3) and the words around it, with an eighth to
  // spare so a picture somewhat too large is told so (422 file) rather than cut off (413), and no
  // more: the body is held whole in memory while it is parsed.
  const bodyLimit = Math.ceil(1.5 * config.SCREENSHOT_MAX_BYTES) + 64 * 1024;
  app.post('/room/:sessionId/comments', { bodyLimit }, async (req, reply) => {
    const session = await shellSession(req, reply);
    if (!session) return;
    const parsed = CommentBody.safeParse(req.body);
    if (!parsed.success) return invalidBody(reply, parsed.error);
    const c = parsed.data;
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
      return reply.status(429).send({ error: `at most ${config.COMMENTS_PER_SESSION_HOUR} comments an hour`, reason: 'rate', retryAfter });
    }

    // The picture is judged by its bytes and re-encoded before anything is written.
    let picture = null;
    if (c.screenshot) {
      try {
        picture = await reencodeImage(Buffer.from(c.screenshot.data, 'base64'), screenshotRules(config.SCREENSHOT_MAX_BYTES));
      } catch (err) {
        if (err instanceof Refusal && err.status === 503) return reply.status(503).header('retry-after', String(err.extra.retryAfter)).send(err.body());
        if (!(err instanceof ImageRefused)) throw err;
        return reply.status(422).send({ error: 'refused: file', reason: 'file', detail: `the screenshot: ${err.message}` });
      }
    }
    // A frame that never answered may have had the agent stopped by the app's own policy.
    const label = sessionLabelOf(standing, session.id);
    let note = picture ? null : (c.screenshotNote ?? 'no-answer');
    if (note === 'no-answer' && (await captureBlocked(sql, session.id, label))) note = 'blocked';

    const id = randomUUID();
    const key = screenshotKey(session.projectId, id);
    if (picture) await deps.storage.put(key, picture.bytes, { contentType: picture.type, size: picture.bytes.length });
    try {
      const comment = await addComment(sql, session, {
        id, buildId: standing.liveBuildId, appId: c.appId, screen: c.screen, body: c.body, position: c.position, area: c.area, device: c.device,
        screenshot: picture ? { key, type: picture.type as 'image/png' | 'image/webp', width: picture.width, height: picture.height, bytes: picture.bytes.length } : null,
        screenshotNote: note,
      });
      await evidence.events(session, req, [{ kind: 'comment', subject: c.appId }]);
      return {
        recorded: true,
        comment: { id: comment.id, appId: comment.appId, screen: comment.screen, body: comment.body, createdAt: comment.createdAt.toISOString(), hasScreenshot: Boolean(picture), screenshotNote: note },
        askEmail: await askEmailOnce(sql, session.id),
      };
    } catch (err) {
      // Nothing half-written: a picture whose comment could not be stored goes too.
      if (picture) await deps.storage.deletePrefix(key).catch(() => {});
      throw err;
    }
  });

  app.post('/room/:sessionId/email', async (req, reply) => {
    const session = await shellSession(req, reply);
    if (!session) return;
    const parsed = EmailBody.safeParse(req.body);
    if (!parsed.success) return invalidBody(reply, parsed.error);
    if (!session.preview) await saveWhoYouAre(sql, session.id, { email: parsed.data.email });
    return { ok: true };
  });
}
