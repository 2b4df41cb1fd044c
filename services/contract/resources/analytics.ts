import { z } from 'zod';
import { DateTime, Id } from '../common.js';
import { LinkRec } from './link.js';

// Issue 15: the analytics replies and the journey of a link. The spec leaves these bodies "not
// shown"; these are the shapes we keep stable (docs/decisions/analytics.md).

const Count = z.number().int().min(0);
/** Id → a count or seconds. */
const Tally = z.record(z.string(), Count);
/** A UTC day, `YYYY-MM-DD`. */
const UtcDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

/** What the room saw over a day (or a range, in `totals`). */
export const Figures = z.object({
  /** Entries: the room's shell ran for a session (link-preview bots and fetches never count). */
  views: Count,
  /** Distinct sessions that entered; over a range, the sum of each day's (a session across midnight counts on both days). */
  viewers: Count,
  /** Seconds viewers spent with the room in view, all apps and pages together. */
  activeSeconds: Count,
  /** App or page id → seconds. */
  time: Tally,
  /** Sessions that took the last step of the live build's story (0 when it has none). */
  storyCompletions: Count,
  /** Story step id → sessions that took it (over a range, summed per day). */
  steps: Tally,
  /** Scenario id (or `reset`) → runs. */
  scenarios: Tally,
  /** What happens next step kind (`yes`, `question`, ...) → answers. */
  answers: Tally,
  comments: Count,
  /** Viewers a full room turned away (once per browser per hour). */
  bounces: Count,
});
export type Figures = z.infer<typeof Figures>;

export const AnalyticsDay = Figures.extend({ day: UtcDay });
export type AnalyticsDay = z.infer<typeof AnalyticsDay>;

/** On a plan without full analytics (Free): total views over the range, nothing else. */
export const TotalsOnly = z.object({
  from: UtcDay,
  to: UtcDay,
  full: z.literal(false),
  totals: z.object({ views: Count }),
});

/** Id → what the builder called it, so no page shows a raw id (issue 29, item 7). */
const NameOf = z.record(z.string(), z.string());

/**
 * The names of the ids the figures and timelines use, one map per tally. An id with no name
 * (an app of a build since removed, a deleted page) is absent: show the id.
 */
export const Names = z.object({
  /** App id → the app's name; room page id → the page's title (the keys of `time`). */
  time: NameOf,
  /** Story step id → the step's title (the keys of `steps`). */
  steps: NameOf,
  /** Scenario id → its label (the keys of `scenarios`). */
  scenarios: NameOf,
});
export type Names = z.infer<typeof Names>;

/** projectAnalytics with full analytics: every day of the range (a day with nothing shows zeros) and the totals. */
export const ProjectAnalyticsFull = z.object({
  from: UtcDay,
  to: UtcDay,
  full: z.literal(true),
  days: z.array(AnalyticsDay),
  totals: Figures,
  names: Names,
});

export const ProjectAnalytics = z.discriminatedUnion('full', [ProjectAnalyticsFull, TotalsOnly]);
export type ProjectAnalytics = z.infer<typeof ProjectAnalytics>;

/** One project's totals over the range, in workspaceAnalytics. */
export const ProjectSplit = z.object({
  projectId: Id,
  slug: z.string(),
  name: z.string(),
  totals: Figures,
});

/**
 * workspaceAnalytics: as projectAnalytics over every project, plus each project with anything in
 * the range (most views first). Two projects may both have an app `web`: in the days and totals
 * the keys of `time`, `steps` and `scenarios` are `<projectId>:<id>`, and `names` gives
 * "<project name> · <app name>" for them (issue 29, item 7). Each project's own totals keep
 * plain ids.
 */
export const WorkspaceAnalyticsFull = ProjectAnalyticsFull.extend({ projects: z.array(ProjectSplit) });

export const WorkspaceAnalytics = z.discriminatedUnion('full', [WorkspaceAnalyticsFull, TotalsOnly]);
export type WorkspaceAnalytics = z.infer<typeof WorkspaceAnalytics>;

// The journey of one link.

export const JourneyPerson = z.object({
  /** The who-are-you name, or null when the session never gave one. */
  name: z.string().nullable(),
  email: z.string().nullable(),
  /** Sessions of the link under this name and email. */
  sessions: Count,
});

export const JourneyEvent = z.object({
  kind: z.enum(['entry', 'time', 'step', 'scenario', 'answer', 'comment', 'hidden', 'shown', 'leave']),
  /** The app or page id (time), step id (step), scenario id (scenario), step kind (answer), app id (comment). */
  subject: z.string().nullable(),
  seconds: Count,
  at: DateTime,
});

export const JourneySession = z.object({
  id: Id,
  name: z.string().nullable(),
  device: z.enum(['desktop', 'tablet', 'phone']).nullable(),
  startedAt: DateTime,
  /**
   * The leave, or the last moment the room heard from the session once it has heard nothing for
   * 120 s (its beat timeout, as a quiet visit ends); null while it may still be going.
   */
  endedAt: DateTime.nullable(),
  /** `left`: the viewer left the room; `quiet`: the browser went silent without saying so (closed, lost its network); null while going. */
  endReason: z.enum(['left', 'quiet']).nullable(),
  /** The session's events, oldest first; consecutive time on one app or page is one event, its seconds summed, at the first beat. */
  timeline: z.array(JourneyEvent),
  /** App or page id → seconds. */
  time: Tally,
});

/** Seconds a session's tab was out of view: each hidden until the next shown or leave (an unclosed hidden adds nothing). */
export const Outside = z.object({ sessionId: Id, seconds: Count });

/** The live build's story: how many steps it has and how many distinct ones the link's sessions took. */
export const TourProgress = z.object({ steps: Count, taken: Count });

export const Journey = z.object({
  link: LinkRec,
  people: z.array(JourneyPerson),
  sessions: z.array(JourneySession),
  outside: z.array(Outside),
  tour: TourProgress.nullable(),
  /** Null while every raw event is kept (today); the start of the kept events once older ones are rolled up and removed. */
  windowStart: DateTime.nullable().optional(),
  /** The names of the apps, pages, steps and scenarios the timelines and times name by id. */
  names: Names,
});
export type Journey = z.infer<typeof Journey>;
