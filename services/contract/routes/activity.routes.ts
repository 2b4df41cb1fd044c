import { z } from 'zod';
import { Day } from '../common.js';
import { Comment, FeedbackDetail, FeedbackRec, Response, Visit } from '../resources/activity.js';
import { Journey, ProjectAnalytics, WorkspaceAnalytics } from '../resources/analytics.js';
import { route } from '../route.js';
import { CommentParams, LinkParams, ProjectParams } from './params.js';

// Spec 4.2: viewer activity (visits, answers, comments and feedback) and analytics. The analytics
// and journey bodies are not shown by the spec; ours are in resources/analytics.ts.

/** Analytics range: UTC days, both ends included. Checked by the service, which answers 422 range. */
const Range = { from: Day, to: Day };

export const activityRoutes = {
  listVisits: route({
    operation: 'listVisits', method: 'GET', path: '/api/projects/:projectId/visits', status: 200, tag: 'activity',
    summary: "The project's visits; a preview records none; 402 on Free.",
    params: ProjectParams,
    reply: z.array(Visit),
    errors: [402, 404],
  }),
  listResponses: route({
    operation: 'listResponses', method: 'GET', path: '/api/projects/:projectId/responses', status: 200, tag: 'activity',
    summary: "Viewers' answers to What happens next.",
    params: ProjectParams,
    reply: z.array(Response),
    errors: [404],
  }),
  listComments: route({
    operation: 'listComments', method: 'GET', path: '/api/projects/:projectId/comments', status: 200, tag: 'activity',
    summary: 'Comments pinned to screens.',
    params: ProjectParams,
    reply: z.array(Comment),
    errors: [404],
  }),
  journey: route({
    operation: 'journey', method: 'GET', path: '/api/links/:linkId/journey', status: 200, tag: 'activity',
    summary: "One viewer's journey through the room; 402 on a plan without full analytics.",
    params: LinkParams,
    reply: Journey,
    errors: [402, 404],
  }),
  projectAnalytics: route({
    operation: 'projectAnalytics', method: 'GET', path: '/api/projects/:projectId/analytics/:from/:to', status: 200, tag: 'activity',
    summary: 'Analytics over UTC days, at most 366, both ends included; total views only without full analytics; 422 range when not days or reversed.',
    params: z.object({ projectId: z.string(), ...Range }),
    reply: ProjectAnalytics,
    errors: [404, 422],
  }),
  workspaceAnalytics: route({
    operation: 'workspaceAnalytics', method: 'GET', path: '/api/analytics/:from/:to', status: 200, tag: 'activity',
    summary: 'As projectAnalytics across the workspace, with a split by project.',
    params: z.object(Range),
    reply: WorkspaceAnalytics,
    errors: [422],
  }),
  projectBounces: route({
    operation: 'projectBounces', method: 'GET', path: '/api/projects/:projectId/bounces', status: 200, tag: 'activity',
    summary: 'Viewers a full room turned away this UTC month, counted once per session per hour.',
    params: ProjectParams,
    reply: z.object({ thisMonth: z.number().int() }),
    errors: [404],
  }),
  listFeedback: route({
    operation: 'listFeedback', method: 'GET', path: '/api/projects/:projectId/feedback', status: 200, tag: 'activity',
    summary: "The project's comments with their replies.",
    params: ProjectParams,
    reply: z.array(FeedbackRec),
    errors: [404],
  }),
  getFeedback: route({
    operation: 'getFeedback', method: 'GET', path: '/api/comments/:commentId', status: 200, tag: 'activity',
    summary: 'One comment with its screenshot, viewer and thread.',
    params: CommentParams,
    reply: FeedbackDetail,
    errors: [404],
  }),
  resolveComment: route({
    operation: 'resolveComment', method: 'POST', path: '/api/comments/:commentId/resolve', status: 200, tag: 'activity',
    summary: 'Marks the comment resolved (sets resolvedAt), or unresolved with false.',
    params: CommentParams,
    body: z.object({ resolved: z.boolean() }),
    reply: FeedbackRec,
    errors: [404],
  }),
  replyToComment: route({
    operation: 'replyToComment', method: 'POST', path: '/api/comments/:commentId/reply', status: 200, tag: 'activity',
    summary: 'One reply per comment; a second replaces it.',
    params: CommentParams,
    body: z.object({ body: z.string().min(1).max(2000) }),
    reply: FeedbackRec,
    errors: [404],
  }),
  getScreenshot: route({
    operation: 'getScreenshot', method: 'GET', path: '/api/comments/:commentId/screenshot', status: 200, tag: 'activity',
    summary: "Beyond the spec: the comment's screenshot, the image bytes (PNG or WebP), for members of the workspace only; 404 when it has none.",
    params: CommentParams,
    errors: [404],
  }),
  removeScreenshot: route({
    operation: 'removeScreenshot', method: 'POST', path: '/api/comments/:commentId/screenshot/remove', status: 200, tag: 'activity',
    summary: "Beyond the spec: deletes the comment's screenshot for good; its screenshotNote becomes `removed`. Removing none again changes nothing.",
    params: CommentParams,
    reply: FeedbackDetail,
    errors: [404],
  }),
};
