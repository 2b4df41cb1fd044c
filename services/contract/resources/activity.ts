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

export const Comment = z.object({
  id: Id,
  linkId: Id.nullable(),
  viewerName: z.string().nullable(),
  appId: z.string().nullable(),
  screen: z.string().nullable(),
  body: z.string(),
  resolvedAt: DateTime.nullable(),
  createdAt: DateTime,
  position: Obj.nullable(),
  area: Obj.nullable(),
  device: Device.nullable(),
  hasScreenshot: z.boolean(),
});
export type Comment = z.infer<typeof Comment>;

export const FeedbackRec = Comment.extend({
  /** One reply per comment; a second replaces it. */
  reply: z.string().nullable(),
  repliedAt: DateTime.nullable(),
  from: Obj.nullable(),
});
export type FeedbackRec = z.infer<typeof FeedbackRec>;

/** Why a comment has no screenshot to show. */
export const ScreenshotNote = z.enum(['removed', 'no-answer', 'timeout', 'blocked', 'tainted', 'too-large', 'failed']);

export const FeedbackDetail = FeedbackRec.extend({
  projectId: Id,
  appName: z.string().nullable(),
  screenshot: Obj.nullable(),
  screenshotNote: ScreenshotNote.nullable(),
  viewer: Obj.nullable(),
  thread: z.array(Obj),
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
