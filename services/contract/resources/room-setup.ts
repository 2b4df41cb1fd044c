import { z } from 'zod';
import { DateTime, Id, Obj, Uri } from '../common.js';

// Spec 2.7: room state, setup, tour, history and next steps.

/** What a viewer with a working link meets. */
export const RoomAsMet = z.enum(['room', 'paused', 'unavailable']);
/** A platform pause; what starts or lifts one is the platform's business. */
export const PlatformPause = z.enum(['over-limit', 'suspended', 'takedown']);

export const RoomPause = z.object({
  /** The owner's pause. */
  owner: Obj.nullable(),
  system: PlatformPause.nullable(),
  viewers: RoomAsMet,
});
export type RoomPause = z.infer<typeof RoomPause>;

export const PageKind = z.enum(['markdown', 'html']);

/** Pages a room holds at most: as many as a manifest may list (spec 8). addPage refuses more. */
export const ROOM_PAGES_MAX = 30;
/** Characters a room's pages hold together at most (two and a half pages of the largest size). */
export const ROOM_PAGES_CHARS_MAX = 5_000_000;

export const RoomSetup = z.object({
  /** Null means the manifest's order. */
  appOrder: z.array(z.string()).nullable(),
  pages: z.array(Obj),
});
export type RoomSetup = z.infer<typeof RoomSetup>;

/** The result each Tour step carries. A build deployed without a rehearsal is `not-reported`, never `passed`. */
export const RehearsalResult = z.enum(['passed', 'failed', 'nothing-to-run', 'not-reported']);

/** One story step of the live build, as the tour shows it. */
export const TourStep = z.object({
  id: z.string(),
  title: z.string(),
  app: z.string(),
  /** The app's tab name; null when the manifest no longer names the app. */
  appName: z.string().nullable(),
  path: z.string().nullable(),
  /** The calls the step makes on the viewer's copy before it shows, in order. */
  calls: z.array(z.string()),
  result: RehearsalResult,
  /** What each call answered at the rehearsal; empty when not reported. */
  rehearsed: z.array(z.object({ call: z.string(), status: z.number().int(), ms: z.number().int() })),
});
export type TourStep = z.infer<typeof TourStep>;

export const Tour = z.object({
  /** Null when nothing is live: `{id, kind, createdAt, rehearsedAt, tool}` of the live build. */
  build: Obj.nullable(),
  steps: z.array(TourStep),
  /** False for a build deployed without a rehearsal: its steps are `not-reported`, never `passed`. */
  reported: z.boolean(),
});
export type Tour = z.infer<typeof Tour>;

export const HistoryKind = z.enum(['room.pause', 'room.message', 'room.resume', 'link.copy', 'link.reissue', 'room.busy']);

/** One entry of the append-only project history. */
export const HistoryEntry = z.object({
  id: Id,
  kind: HistoryKind,
  by: z.string().nullable(),
  message: z.string().nullable(),
  viewer: z.string().nullable(),
  until: DateTime.nullable(),
  at: DateTime,
});
export type HistoryEntry = z.infer<typeof HistoryEntry>;

/** The What happens next answers a viewer can give; also Response.step. */
export const NextStepKind = z.enum(['meeting', 'yes', 'later', 'colleague', 'question', 'no']);
export type NextStepKind = z.infer<typeof NextStepKind>;

/**
 * One What happens next step (docs/decisions/viewer-voice.md): its kind, the words on its button
 * (`label`), an optional line the panel shows under it (`prompt`), and for `meeting` the
 * builder's booking address (`url`, opened in a new tab).
 */
export const NextStep = z.object({
  kind: NextStepKind,
  label: z.string().min(1).max(60),
  prompt: z.string().min(1).max(200).nullable(),
  url: Uri.nullable(),
});
export type NextStep = z.infer<typeof NextStep>;

/** An http(s) address of at most 500 characters: a booking page. */
const BookingUrl = z.url({ protocol: /^https?$/ }).max(500);

/**
 * A step as setNextSteps takes it: only `kind` is needed; words left out are the step's own
 * (current, or kept from when it was removed), else the room's defaults.
 */
export const NextStepInput = z.object({
  kind: NextStepKind,
  label: z.string().trim().min(1).max(60).optional(),
  prompt: z.string().trim().min(1).max(200).nullable().optional(),
  url: BookingUrl.nullable().optional(),
});
export type NextStepInput = z.infer<typeof NextStepInput>;

/** setNextSteps' body: at most 6 steps, each kind at most once, in the order the room shows them. */
export const NextStepsInput = z.object({
  steps: z
    .array(NextStepInput)
    .max(6)
    .superRefine((steps, ctx) => {
      const seen = new Set<string>();
      steps.forEach((step, i) => {
        if (seen.has(step.kind)) ctx.addIssue({ code: 'custom', path: [i, 'kind'], message: `${step.kind} is listed twice` });
        seen.add(step.kind);
      });
    }),
});

export const NextSteps = z.object({
  steps: z.array(NextStep).max(6),
  /** Words of steps left out by setNextSteps, kept. */
  removed: z.array(NextStep),
  planAllows: z.boolean(),
  offered: z.array(NextStepKind),
});
export type NextSteps = z.infer<typeof NextSteps>;
