import { notFound } from '../../core/rules/errors.js';
import { commentIn, commentsOf, forgetScreenshot, replyToComment, resolveComment } from '../../data/comments.sql.js';
import { projectIn } from '../../data/projects.sql.js';
import { responsesOf } from '../../data/responses.sql.js';
import type { HandlerGroup } from '../routing/handler.js';
import { commentView, feedbackDetailView, feedbackView } from './comment-view.js';

// The builder's inbox (spec 4.2): viewers' answers and comments, one comment with its picture and
// thread, resolving and replying. A comment of another workspace is a 404 like a missing one.

export const feedbackHandlers = {
  listResponses: async ({ deps, auth, params }) => {
    const project = await projectIn(deps.sql, auth.workspaceId, params.projectId);
    const rows = await responsesOf(deps.sql, project.id);
    return rows.map((r) => ({
      id: r.id,
      linkId: r.linkId,
      viewerName: r.viewerName,
      step: r.step,
      detail: r.detail,
      createdAt: r.createdAt.toISOString(),
    }));
  },
  listComments: async ({ deps, auth, params }) => {
    const project = await projectIn(deps.sql, auth.workspaceId, params.projectId);
    return (await commentsOf(deps.sql, project.id)).map(commentView);
  },
  listFeedback: async ({ deps, auth, params }) => {
    const project = await projectIn(deps.sql, auth.workspaceId, params.projectId);
    return (await commentsOf(deps.sql, project.id)).map(feedbackView);
  },
  getFeedback: async ({ deps, auth, params }) => {
    const comment = await commentIn(deps.sql, auth.workspaceId, params.commentId);
    return feedbackDetailView(comment);
  },
  resolveComment: async ({ deps, auth, params, body }) => {
    const comment = await commentIn(deps.sql, auth.workspaceId, params.commentId);
    return feedbackView(await resolveComment(deps.sql, comment.id, body.resolved));
  },
  replyToComment: async ({ deps, auth, params, body }) => {
    const comment = await commentIn(deps.sql, auth.workspaceId, params.commentId);
    return feedbackView(await replyToComment(deps.sql, comment.id, body.body, auth.personId));
  },

  /** The picture's bytes, to members only; never cached outside the member's own browser session. */
  getScreenshot: async ({ deps, auth, params, reply }) => {
    const comment = await commentIn(deps.sql, auth.workspaceId, params.commentId);
    const object = comment.screenshotKey ? await deps.storage.get(comment.screenshotKey) : null;
    if (!object || !comment.screenshotType) throw notFound();
    reply
      .header('content-type', comment.screenshotType)
      .header('content-length', String(object.size))
      .header('cache-control', 'private, no-store')
      .header('x-content-type-options', 'nosniff')
      .header('content-disposition', 'inline')
      .header('content-security-policy', "default-src 'none'; sandbox");
    return reply.send(object.body);
  },
  removeScreenshot: async ({ deps, auth, params }) => {
    const comment = await commentIn(deps.sql, auth.workspaceId, params.commentId);
    const key = await forgetScreenshot(deps.sql, comment.id);
    // The row forgets it first: a failed delete leaves an unreachable object, never a broken link.
    if (key) await deps.storage.deletePrefix(key);
    const after = await commentIn(deps.sql, auth.workspaceId, comment.id);
    return feedbackDetailView(after);
  },
} satisfies HandlerGroup;
