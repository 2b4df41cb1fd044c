import { z } from 'zod';
import { DateTime, Email, Id } from '../common.js';
import { nameText } from '../storable-text.js';
import { NextStepKind } from './room-setup.js';

/** Days a link lasts when its making does not say: one default for the web app, the CLI and the connector (issue 29). */
export const LINK_DEFAULT_DAYS = 14;

// Spec 2.4. The full address of a link (`url`) is never part of these records: only createLink,
// revealLink and reissueLink return it, next to the record.

export const LinkStage = z.enum(['sent', 'opened', 'engaged', 'yes', 'later', 'no']);
export type LinkStage = z.infer<typeof LinkStage>;

export const LinkOutcome = z.enum(['won', 'lost', 'later']);
export type LinkOutcome = z.infer<typeof LinkOutcome>;

/**
 * The company a link's viewer is at (issue 34, personalised copies): passed to a build that opts
 * in (manifest `personalise`), with the name. Stored without control characters (line breaks too), 1–80 characters.
 */
export const ViewerCompany = nameText(80);

/** The name a link is made for, as the builder typed it: 1–80 characters, no control characters (line breaks too). */
export const ViewerName = nameText(80);

export const LinkRec = z.object({
  id: Id,
  viewerName: z.string(),
  viewerEmail: Email.nullable(),
  /** The viewer's company as the builder wrote it on the link; null when none. */
  viewerCompany: z.string().nullable().optional(),
  expiresAt: DateTime.nullable(),
  revokedAt: DateTime.nullable(),
  stage: LinkStage,
  /** Whether the full address can be shown again (links made before 1 October 2026 kept only a hash). */
  recoverable: z.boolean().optional(),
  /** When a visit last started through the link (previews are not visits); null while never opened. */
  lastOpenedAt: DateTime.nullable(),
});
export type LinkRec = z.infer<typeof LinkRec>;

export const PipelineRec = LinkRec.extend({
  projectId: Id,
  projectName: z.string(),
});
export type PipelineRec = z.infer<typeof PipelineRec>;

/** A calendar day, YYYY-MM-DD, from 0001-01-01 on: there is no year 0 (Postgres refuses it). */
export const CalendarDay = z.iso.date().refine((day) => !day.startsWith('0000'), 'must be a day from 0001-01-01 on');

/** A reminder the builder keeps for themselves: a day, words, or both; nothing is sent to anyone. */
export const FollowUp = z.object({ on: CalendarDay.nullable(), note: z.string().nullable() });

/** What the evidence says of a link, in numbers (docs/decisions/pipeline-and-evidence.md). */
export const Signals = z.object({
  lastSeenAt: DateTime.nullable(),
  /** Visible seconds over all its visits. */
  activeSeconds: z.number().int(),
  visits: z.number().int(),
  /** Apps and pages seen, by id. */
  appsSeen: z.array(z.string()),
  /** Distinct story steps taken. */
  storySteps: z.number().int(),
  /** What happens next answers given, by step. */
  answers: z.array(NextStepKind),
  comments: z.number().int(),
});

/** Someone else behind the link: another name or email than the link's, or another browser than its first. */
export const Forwarded = z.object({
  name: z.string().nullable(),
  email: z.string().nullable(),
  device: z.enum(['desktop', 'tablet', 'phone']).nullable(),
  firstSeenAt: DateTime,
  lastSeenAt: DateTime,
  why: z.array(z.enum(['name', 'email', 'browser'])),
});

export const BoardCard = PipelineRec.extend({
  /** The stage the evidence suggests; `stage` is the manual one when placed. */
  suggested: LinkStage,
  placed: z.boolean(),
  outcome: LinkOutcome.nullable(),
  followUp: FollowUp,
  /** How many notes the link has. */
  notes: z.number().int(),
  signals: Signals,
  /** Who else came, the newest 20 at most (issue 28), oldest first. */
  forwarded: z.array(Forwarded),
  /** Beyond the spec (issue 28): how many claims `forwarded` would list uncapped. */
  forwardedCount: z.number().int(),
  /** Distinct names claimed on the link. */
  claims: z.number().int(),
});
export type BoardCard = z.infer<typeof BoardCard>;
