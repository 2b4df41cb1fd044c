import { z } from 'zod';
import { DateTime, Id, Obj } from '../common.js';

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

export const RoomSetup = z.object({
  /** Null means the manifest's order. */
  appOrder: z.array(z.string()).nullable(),
  pages: z.array(Obj),
});
export type RoomSetup = z.infer<typeof RoomSetup>;

/** The result each Tour step carries. A build deployed without a rehearsal is `not-reported`, never `passed`. */
export const RehearsalResult = z.enum(['passed', 'failed', 'nothing-to-run', 'not-reported']);

export const Tour = z.object({
  /** Null when nothing is live. */
  build: Obj.nullable(),
  /** Each has the step's app, its calls and its rehearsal result (RehearsalResult). */
  steps: z.array(Obj),
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

export const NextSteps = z.object({
  steps: z.array(Obj).max(6),
  /** Words of steps left out by setNextSteps, kept. */
  removed: z.array(Obj),
  planAllows: z.boolean(),
  offered: z.array(NextStepKind),
});
export type NextSteps = z.infer<typeof NextSteps>;
