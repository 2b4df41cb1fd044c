import type { Comment, FeedbackDetail, FeedbackRec } from '@demo-rooms/contract';
import { replierOf, type CommentRow } from '../../data/comments.sql.js';

// Comment rows as the contract's Comment, FeedbackRec and FeedbackDetail (spec 2.5).

/** Where a member's browser fetches the picture: the api, signed in, never the object store. */
export const screenshotUrl = (commentId: string) => `/api/comments/${commentId}/screenshot`;

export function commentView(c: CommentRow): Comment {
  return {
    id: c.id,
    linkId: c.linkId,
    viewerName: c.viewerName,
    appId: c.appId,
    screen: c.screen,
    body: c.body,
    resolvedAt: c.resolvedAt?.toISOString() ?? null,
    createdAt: c.createdAt.toISOString(),
    position: c.position,
    area: c.area,
    device: c.device,
    hasScreenshot: c.screenshotKey !== null,
  };
}

export function feedbackView(c: CommentRow): FeedbackRec {
  return {
    ...commentView(c),
    reply: c.reply,
    repliedAt: c.repliedAt?.toISOString() ?? null,
    from: replierOf(c),
    appName: c.appName,
    screenshotNote: c.screenshotNote,
    viewerEmail: c.viewerEmail,
  };
}

export function feedbackDetailView(c: CommentRow): FeedbackDetail {
  const rec = feedbackView(c);
  return {
    ...rec,
    projectId: c.projectId,
    screenshot:
      c.screenshotKey && c.screenshotType
        ? {
            url: screenshotUrl(c.id),
            type: c.screenshotType,
            width: c.screenshotWidth!,
            height: c.screenshotHeight!,
            bytes: c.screenshotBytes!,
          }
        : null,
    viewer: { name: c.viewerName, email: c.viewerEmail, linkId: c.linkId },
    thread: [
      { kind: 'comment', by: c.viewerName, body: c.body, at: rec.createdAt },
      ...(c.reply && rec.repliedAt
        ? [{ kind: 'reply' as const, by: rec.from?.displayName ?? null, body: c.reply, at: rec.repliedAt }]
        : []),
    ],
  };
}
