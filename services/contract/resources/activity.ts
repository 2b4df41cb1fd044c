import { z } from 'zod';
import { DateTime, Device, Id, Obj, Uri } from '../common.js';
import { NextStepKind } from './room-setup.js';

// Spec 2.5: what viewers leave behind (visits, answers, comments) and the builder's notes.

export const Visit = z.object({
  id: Id,
  linkId: Id.nullable(),
  viewerName: z.string().nullable(),
  startedAt: DateTime,
  endedAt: DateTime.nullable(),
  /** Seconds per app and page, by key. */
  time: z.record(z.string(), z.number().int()),
  /** The keys of `time` → the app's name or the page's title (absent when it has none any more). */
  names: z.record(z.string(), z.string()),
});
export type Visit = z.infer<typeof Visit>;

export const Response = z.object({
  id: Id,
  linkId: Id,
  viewerName: z.string(),
  step: NextStepKind,
  detail: Obj.nullable(),
  createdAt: DateTime,
});
export type Response = z.infer<typeof Response>;

/** A point on the app's frame, as fractions of its width and height (0 to 1), so it holds at any size. */
export const Point = z.object({ x: z.number().min(0).max(1), y: z.number().min(0).max(1) });
/** An area dragged on the app's frame, in the same fractions; it stays inside the frame. */
export const Area = z
  .object({
    x: z.number().min(0).max(1),
    y: z.number().min(0).max(1),
    width: z.number().min(0).max(1),
    height: z.number().min(0).max(1),
  })
  .refine((a) => a.x + a.width <= 1.000001 && a.y + a.height <= 1.000001, { message: 'the area must lie inside the frame' });

export const Comment = z.object({
  id: Id,
  linkId: Id.nullable(),
  viewerName: z.string().nullable(),
  appId: z.string().nullable(),
  screen: z.string().nullable(),
  body: z.string(),
  resolvedAt: DateTime.nullable(),
  createdAt: DateTime,
  position: Point.nullable(),
  area: Area.nullable(),
  device: Device.nullable(),
  hasScreenshot: z.boolean(),
});
export type Comment = z.infer<typeof Comment>;

/** Why a comment has no screenshot to show. */
export const ScreenshotNote = z.enum(['removed', 'no-answer', 'timeout', 'blocked', 'tainted', 'too-large', 'failed', 'blank']);

export const FeedbackRec = Comment.extend({
  /** One reply per comment; a second replaces it. */
  reply: z.string().nullable(),
  repliedAt: DateTime.nullable(),
  /** The member who replied: `{userId, displayName}`. */
  from: z.object({ userId: Id, displayName: z.string() }).nullable(),
  /** The app's name in the build the comment was made on (issue 29, item 7: the list needs no getFeedback per comment). */
  appName: z.string().nullable(),
  /** Why there is no screenshot, when there is none for a reason. */
  screenshotNote: ScreenshotNote.nullable(),
  /** The email the viewer gave, never verified. */
  viewerEmail: z.string().nullable(),
});
export type FeedbackRec = z.infer<typeof FeedbackRec>;

/** The picture a comment carries: served to members of the workspace only, at `url`. */
export const Screenshot = z.object({
  url: z.string().startsWith('/api/'),
  type: z.enum(['image/png', 'image/webp']),
  width: z.number().int().min(1),
  height: z.number().int().min(1),
  bytes: z.number().int().min(1),
});

/** One entry of a comment's thread: the viewer's comment, then the builder's reply. */
export const ThreadEntry = z.object({
  kind: z.enum(['comment', 'reply']),
  /** The viewer's name, or the member's display name. */
  by: z.string().nullable(),
  body: z.string(),
  at: DateTime,
});

export const FeedbackDetail = FeedbackRec.extend({
  projectId: Id,
  appName: z.string().nullable(),
  screenshot: Screenshot.nullable(),
  screenshotNote: ScreenshotNote.nullable(),
  /** Who left it: `{name, email, linkId}`; the email is the one the viewer gave, never verified. */
  viewer: z.object({ name: z.string().nullable(), email: z.string().nullable(), linkId: Id.nullable() }).nullable(),
  thread: z.array(ThreadEntry),
});
export type FeedbackDetail = z.infer<typeof FeedbackDetail>;

/** A builder's note on a link. Never shown in the room. */
export const Note = z.object({
  id: Id,
  linkId: Id,
  body: z.string(),
  by: z.string().nullable(),
  byImage: Uri.nullable(),
  createdAt: DateTime,
});
export type Note = z.infer<typeof Note>;
