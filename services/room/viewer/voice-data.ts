import type { ViewerComment, VoiceData } from '@demo-rooms/contract';
import type { Sql } from '../../core/infra/db.js';
import { commentsOfLink, replyIsNew } from '../../data/comments.sql.js';
import { nextStepsOf, offeredOn } from '../../data/next-steps.sql.js';
import type { ProjectRow } from '../../data/projects.sql.js';
import { stepsAnsweredIn } from '../../data/responses.sql.js';
import type { RoomSessionRow } from '../../data/room-sessions.sql.js';
import { planNameOf } from '../../data/workspaces.sql.js';

// What the shell is told of the viewer's voice (issue 14): the steps the room offers, what this
// visit already answered, and the comments left through the link with the builder's replies.

export async function voiceOf(sql: Sql, project: ProjectRow, session: RoomSessionRow, screenshotMaxBytes: number): Promise<VoiceData> {
  const steps = offeredOn(await planNameOf(sql, project.workspaceId), (await nextStepsOf(sql, project.id)).steps);
  return {
    steps,
    answered: await stepsAnsweredIn(sql, session.visitId),
    comments: await viewerCommentsOf(sql, session),
    screenshotMaxBytes,
  };
}

/** The comments left through the session's link, oldest first, with the replies; none in a preview. */
export async function viewerCommentsOf(sql: Sql, session: RoomSessionRow): Promise<ViewerComment[]> {
  const comments = session.linkId ? await commentsOfLink(sql, session.linkId) : [];
  return comments.map((c) => ({
    id: c.id,
    appId: c.appId,
    screen: c.screen,
    body: c.body,
    createdAt: c.createdAt.toISOString(),
    reply: c.reply,
    repliedAt: c.repliedAt?.toISOString() ?? null,
    from: c.replierName,
    replyNew: replyIsNew(c),
  }));
}
