import { z } from 'zod';
import { DateTime, Email, Id, Obj } from '../common.js';

// Spec 2.4. The full address of a link (`url`) is never part of these records: only createLink,
// revealLink and reissueLink return it, next to the record.

export const LinkStage = z.enum(['sent', 'opened', 'engaged', 'yes', 'later', 'no']);
export type LinkStage = z.infer<typeof LinkStage>;

export const LinkOutcome = z.enum(['won', 'lost', 'later']);
export type LinkOutcome = z.infer<typeof LinkOutcome>;

export const LinkRec = z.object({
  id: Id,
  viewerName: z.string(),
  viewerEmail: Email.nullable(),
  expiresAt: DateTime.nullable(),
  revokedAt: DateTime.nullable(),
  stage: LinkStage,
  /** Whether the full address can be shown again (links made before 1 October 2026 kept only a hash). */
  recoverable: z.boolean().optional(),
});
export type LinkRec = z.infer<typeof LinkRec>;

export const PipelineRec = LinkRec.extend({
  projectId: Id,
  projectName: z.string(),
});
export type PipelineRec = z.infer<typeof PipelineRec>;

export const BoardCard = PipelineRec.extend({
  /** The stage the evidence suggests; `stage` is the manual one when placed. */
  suggested: LinkStage,
  placed: z.boolean(),
  outcome: LinkOutcome.nullable(),
  followUp: Obj,
  /** How many notes the link has. */
  notes: z.number().int(),
  signals: Obj,
  forwarded: z.array(Obj),
  claims: z.number().int(),
});
export type BoardCard = z.infer<typeof BoardCard>;
