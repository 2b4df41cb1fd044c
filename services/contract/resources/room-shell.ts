import { z } from 'zod';
import { Device } from '../common.js';
import { CallOutcome, CopyView } from '../runner/runner-api.schema.js';
import { bodyText, nameText, storable } from '../storable-text.js';
import { Area, Point, ScreenshotNote } from './activity.js';
import { NextStep, NextStepKind } from './room-setup.js';

// What the room shell (services/room/shell) and the room's `/room/:sessionId/*` endpoints say to
// each other: the data the shell page carries, and each endpoint's body and reply. Every text a
// viewer types is stored without control characters or lone surrogates (storable-text.ts); names
// (and companies) lose tabs and line breaks too.

const Name = nameText(80);
const Email = z.preprocess(storable, z.email().max(254));

/** A comment left through the link, with the builder's reply when there is one. */
export const ViewerComment = z.object({
  id: z.string(),
  appId: z.string().nullable(),
  screen: z.string().nullable(),
  body: z.string(),
  createdAt: z.string(),
  reply: z.string().nullable(),
  repliedAt: z.string().nullable(),
  from: z.string().nullable(),
  /** The reply is one the viewer has not seen in the room yet (the shell counts these on Comment). */
  replyNew: z.boolean(),
});
export type ViewerComment = z.infer<typeof ViewerComment>;

/** What the viewer can say back (viewer-voice): the offered steps, and their comments with replies. */
export const VoiceData = z.object({
  steps: z.array(NextStep),
  /** Steps this visit already answered. */
  answered: z.array(NextStepKind),
  /** Comments left through this link, oldest first. */
  comments: z.array(ViewerComment),
  screenshotMaxBytes: z.number(),
});
export type VoiceData = z.infer<typeof VoiceData>;

/** The data the shell page carries (a JSON script element the shell reads as it starts). */
export const ShellData = z.object({
  sessionId: z.string(),
  preview: z.boolean(),
  kind: z.enum(['static', 'container']).nullable(),
  apps: z.array(z.object({ id: z.string(), name: z.string(), device: z.string(), path: z.string() })),
  pages: z.array(z.object({ id: z.string(), title: z.string() })),
  opened: z.string().nullable(),
  /**
   * `company`: the prompt offers a company field too (a build that personalises its copies);
   * `suggestedCompany`: the link's, to start it with.
   */
  ask: z.object({
    name: z.boolean(),
    email: z.boolean(),
    suggestedName: z.string().nullable(),
    company: z.boolean(),
    suggestedCompany: z.string().nullable(),
  }),
  /** The build is told who is viewing (manifest `personalise`): the room says so to the viewer once. */
  personalised: z.boolean(),
  /** Who sent the link (the who-are-you prompt names them); null in a preview. */
  sender: z.string().nullable(),
  /** The guided story: each step's words, app, page and device; `runs` when it makes calls first. */
  story: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      say: z.string(),
      app: z.string(),
      path: z.string().nullable(),
      device: z.string().nullable(),
      point: z.string().nullable(),
      runs: z.boolean(),
    }),
  ),
  /** Scenario controls of a container build: reset, and each scenario by id. */
  controls: z.object({
    reset: z.boolean(),
    scenarios: z.array(z.object({ id: z.string(), label: z.string(), description: z.string().nullable() })),
  }),
  voice: VoiceData,
  /** How often the shell sends the time it counted (the room's SHELL_FLUSH_MS; tests shorten it). */
  flushMs: z.number().int().positive(),
});
export type ShellData = z.infer<typeof ShellData>;

/** What a viewer reads while their own copy is not (yet) in front of them (copy-states.ts). */
export const CopyNotice = z.object({
  state: CopyView.shape.state,
  title: z.string(),
  message: z.string(),
  waiting: z.boolean(),
  place: z.number().int().optional(),
  /** Queued: when to ask again (ms): later the further back in line, jittered so a crowd does not ask in step. */
  retryMs: z.number().int().min(0).optional(),
  version: z.string(),
});
export type CopyNotice = z.infer<typeof CopyNotice>;

export const HelloBody = z.object({ name: Name, email: Email.optional(), company: Name.optional() });
/** `full`: every seat was taken; the shell reloads the address, which says Demo full. */
export const HelloReply = z.object({ ok: z.literal(true), full: z.literal(true).optional() });
export const ArriveReply = z.union([z.object({ ok: z.literal(true) }), z.object({ ok: z.literal(false), full: z.literal(true) })]);

/** An app that does not fit is one that does not exist: 404, as for an unknown app. */
export const GrantBody = z.object({ app: z.string().max(40) }).catch({ app: '' });
export const GrantReply = z.union([z.object({ state: z.literal('ready'), origin: z.string(), url: z.string() }), CopyNotice]);

export const RunBody = z.union([
  z.object({ reset: z.literal(true) }),
  z.object({ scenario: z.string().max(40) }),
  z.object({ step: z.string().max(40) }),
]);
/** `outcomes` only in a preview: which calls ran is the builder's to see. */
export const RunReply = z.object({ ok: z.boolean(), outcomes: z.array(CallOutcome).optional(), copy: CopyNotice.optional() });

/** What a beat's `time` may be keyed by: an app id (manifest.schema.ts) or a page id (a uuid). */
const timeKey = /^[\w./:-]{1,80}$/;
export const BeatBody = z.object({
  // Keys are app ids and page ids: plain words, never a character Postgres refuses in jsonb.
  time: z.record(z.string().regex(timeKey), z.number().min(0).max(86_400)).refine((t) => Object.keys(t).length <= 50),
  /** The viewer has a container copy open. */
  copy: z.boolean().optional(),
  /** The room's tab went out of view (this beacon is its last word until it is back), or came back. */
  hidden: z.boolean().optional(),
  shown: z.boolean().optional(),
});
export type BeatBody = z.infer<typeof BeatBody>;
/** Leaving sends its last beat if it can; a beat that does not fit is dropped, the leave still counts. */
export const LeaveBody = BeatBody.nullable().catch(null);
export const Ok = z.object({ ok: z.literal(true) });

const OptionalNote = z.object({ note: bodyText(2000).optional() });
/** What each next step asks of the viewer, beyond the click. */
export const AnswerDetail = {
  question: z.object({ text: bodyText(2000) }),
  colleague: z.object({ name: Name, email: Email }),
  meeting: z.object({ time: z.preprocess(storable, z.string().trim().min(1).max(80)).optional() }),
  yes: OptionalNote,
  later: OptionalNote,
  no: OptionalNote,
} satisfies Record<NextStepKind, z.ZodType>;

/** The step, then its detail as that step asks it (issues under `detail.`). */
export const AnswerBody = z
  .object({ step: NextStepKind, detail: z.record(z.string(), z.unknown()).optional() })
  .transform((answer, ctx) => {
    const detail = AnswerDetail[answer.step].safeParse(answer.detail ?? {});
    if (detail.success) return { step: answer.step, detail: detail.data as Record<string, string | undefined> };
    for (const issue of detail.error.issues) ctx.addIssue({ ...issue, path: ['detail', ...issue.path] } as never);
    return z.NEVER;
  });
export const AnswerReply = z.union([
  z.object({ recorded: z.literal(false), askEmail: z.literal(false) }),
  z.object({ recorded: z.literal(true), id: z.string(), again: z.boolean(), askEmail: z.boolean() }),
]);

export const CommentBody = z
  .object({
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
  })
  .refine((c) => c.position || c.area, { message: 'pin the comment to a point or an area', path: ['position'] });
export type CommentBody = z.infer<typeof CommentBody>;
export const CommentReply = z.union([
  z.object({ recorded: z.literal(false), askEmail: z.literal(false) }),
  z.object({
    recorded: z.literal(true),
    comment: z.object({
      id: z.string(),
      appId: z.string().nullable(),
      screen: z.string().nullable(),
      body: z.string(),
      createdAt: z.string(),
      hasScreenshot: z.boolean(),
      screenshotNote: ScreenshotNote.nullable(),
    }),
    askEmail: z.boolean(),
  }),
]);

export const EmailBody = z.object({ email: Email });
/** The link's comments as they are now, asked while the viewer is in the room (a reply written meanwhile). */
export const RepliesReply = z.object({ comments: z.array(ViewerComment) });
/** The comments whose replies the viewer has now seen (the Comment panel opened on them). */
export const RepliesSeenBody = z.object({ comments: z.array(z.string().max(64)).max(500) });
