import { z } from 'zod';
import { DateTime, Id } from '../common.js';

// Issue 46: a workspace's statement of a UTC month, as billing reads it (docs/runner.md, "Usage
// and billing"; docs/decisions/usage-and-billing.md). Container seconds come from the same
// computation as containerUsage and the platform's spend check; viewer-hours from the same as the
// plans' viewer-hour allowance. A closed month never changes: a later correction is a line of the
// next open month naming the month and the copy it corrects.

/** A UTC month, YYYY-MM (years from 1000: Date.UTC reads years below 100 as 19xx). */
export const UsageMonth = z.string().regex(/^[1-9]\d{3}-(0[1-9]|1[0-2])$/, 'must be a UTC month, YYYY-MM');

/** At most this many lines in the JSON statement; the CSV export holds every line. */
export const STATEMENT_LINE_CAP = 1000;

/** One copy's seconds in the month (`use`), or a correction of a closed month's copy. */
export const StatementLine = z.object({
  kind: z.enum(['use', 'correction']),
  projectId: Id,
  /** The copy (runner_copies.id); its lifecycle events are copy_events with this copy_id. */
  copyId: Id,
  /** The first and last moment counted in the month (UTC); endedAt null while it still runs. */
  startedAt: DateTime,
  endedAt: DateTime.nullable(),
  /** Container seconds, to the millisecond; a correction may be negative. */
  seconds: z.number(),
  /** The earlier closed month a correction corrects; null for a use line. */
  correctsMonth: z.string().nullable(),
  /** The seqs of the copy's events that open and close the counted time (start, resume, pause, stop, fail). */
  eventSeqs: z.array(z.number().int()),
});
export type StatementLine = z.infer<typeof StatementLine>;

export const StatementProject = z.object({
  projectId: Id,
  name: z.string(),
  /** Copies with time in the month. */
  copies: z.number().int(),
  containerSeconds: z.number(),
  containerHours: z.number(),
  correctionSeconds: z.number(),
  viewerHours: z.number(),
});
export type StatementProject = z.infer<typeof StatementProject>;

export const UsageStatement = z.object({
  month: UsageMonth,
  /** Closed: rolled up final after the month ended; its numbers never change. */
  closed: z.boolean(),
  closedAt: DateTime.nullable(),
  /** What a container-hour costs (RUNNER_COPY_HOUR_USD), the rate of the platform's spend limit. */
  copyHourUsd: z.number(),
  /** The month's use: the sum of its use lines; containerHours equals containerUsage's for the month. */
  containerSeconds: z.number(),
  containerHours: z.number(),
  /** containerHours × copyHourUsd, as the spend limit weighs it (USD, 4 decimals). */
  spendUsd: z.number(),
  /** The sum of the correction lines (of earlier closed months), and its cost. */
  correctionSeconds: z.number(),
  correctionUsd: z.number(),
  /** Viewers' time in the rooms through every way in (private links and public rooms), counted as the viewer-hour allowances count it (previews never). */
  viewerHours: z.number(),
  /** Per project, most container seconds first. */
  projects: z.array(StatementProject),
  /** Use lines then corrections, by project and start; at most STATEMENT_LINE_CAP (the CSV has all). */
  lines: z.array(StatementLine),
  lineCount: z.number().int(),
  linesCut: z.boolean(),
});
export type UsageStatement = z.infer<typeof UsageStatement>;
