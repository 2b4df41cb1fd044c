import { z } from 'zod';

// Controls and story calls (spec 2.1): `controls.reset`, a scenario's call with its body, a
// story step's `run` calls. The room sends them; the runner makes them on the viewer's own copy,
// in order, and reports each outcome. A call that fails (no answer, or not 2xx) stops the rest:
// later calls usually build on earlier ones (reset, then seed), and the step shows what failed.

export const Call = z.object({
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
  // A path on the copy, never an address elsewhere: one leading slash, no whitespace.
  path: z
    .string()
    .regex(/^\/(?!\/)\S*$/)
    .max(2000),
  body: z.record(z.string(), z.unknown()).optional(),
});
export type Call = z.infer<typeof Call>;

export const CallOutcome = z.object({
  call: z.string(),
  ok: z.boolean(),
  status: z.number().int().nullable(),
  ms: z.number().int(),
  /** Why it did not answer, or `skipped` after an earlier failure. */
  error: z.string().optional(),
  /** The start of the reply body (at most 2,000 characters), for the room to show. */
  body: z.string().optional(),
});
export type CallOutcome = z.infer<typeof CallOutcome>;

// The runner's internal API (docs/runner.md), one schema per body and reply: the runner checks
// what it is sent with them, and runner/client.ts checks what it is answered.

export const Uuid = z.uuid();

export const EnterBody = z.object({
  workspaceId: z.uuid(),
  projectId: z.uuid(),
  buildId: z.uuid(),
  /** The room's viewers-at-once number; the plan's concurrentViewers when absent. */
  roomViewerCap: z.number().int().min(0).optional(),
  /** Start again after "could not start" (otherwise a recent failure is answered as it stands). */
  retry: z.boolean().optional(),
  /**
   * The caller found no copy of this session, ever (the fleet client's read of the session's host):
   * the runner goes straight to admission, keyed as the session's first attempt, which answers
   * `existing` if a copy appeared meanwhile; then it reads the session as for any other enter.
   */
  fresh: z.boolean().optional(),
});
export type EnterBody = z.infer<typeof EnterBody>;

/**
 * What a viewer session's copy is now. The room maps it to what the viewer meets:
 *   starting → "starting"; queued → "high demand" with `place` (and, after a while by
 *   `queuedSince`, "still in high demand"); full → "demo full"; spend → "live demo paused for
 *   the platform"; paused → "paused while away"; failed → "could not start"; running → the copy
 *   answers through its host's data plane (its address stays inside the runner); gone → nothing now (the viewer left, it was idle too long, or it vanished):
 *   entering again starts a fresh one.
 */
export const CopyView = z.object({
  state: z.enum(['starting', 'running', 'queued', 'full', 'spend', 'failed', 'paused', 'gone']),
  copyId: z.uuid().nullable(),
  place: z.number().int().min(1).optional(),
  queuedSince: z.iso.datetime().optional(),
  /** Queued: when to ask again (ms), later the further back in line, jittered so a crowd does not ask in step. */
  retryMs: z.number().int().min(0).optional(),
  /** Why: failed (image, exited, oom, health, engine, interrupted), gone (left, idle, max-age, evicted, exited, oom, vanished, …), full (room, plan). */
  detail: z.string().optional(),
  /** Changes whenever anything above does: pass it back as `seen` to wait for the next change. */
  version: z.string(),
});
export type CopyView = z.infer<typeof CopyView>;

export const WaitQuery = z.object({
  /** Long-poll: answer when the view differs from `seen`, or after this many ms (at most 30 s). */
  wait: z.coerce.number().int().min(0).max(30_000).optional(),
  seen: z.string().max(200).optional(),
});

/** Prepare may wait for a large image's load (ms, at most 2 minutes). */
export const PrepareQuery = z.object({ wait: z.coerce.number().int().min(0).max(120_000).optional() });

export const CallsBody = z.object({ calls: z.array(Call).min(1).max(24) });
export const CallsReply = z.object({ copy: CopyView, outcomes: z.array(CallOutcome) });
export type CallsReply = z.infer<typeof CallsReply>;

export const PrepareReply = z.object({
  image: z.enum(['ready', 'loading', 'failed']),
  detail: z.string().optional(),
  warm: z.number().int(),
});
export type PrepareReply = z.infer<typeof PrepareReply>;

/**
 * One copy whose billed seconds and the engine's record differ by more than a second (issue 46):
 *   differs    both know the copy, and disagree (reported; the operator looks: docs/runner.md)
 *   unowned    the engine ran it and no record owned it: ended, its seconds billed to its workspace
 *   never-ran  billed, but the engine never ran it: voided (a correction, in the next statement
 *              when its month has closed)
 * `fixed` says this pass did the fix; billed is before it. For `unowned`, engineSeconds are the
 * engine's seconds no record had billed, billed now.
 */
export const UsageDifference = z.object({
  copyId: z.string(),
  workspaceId: z.string().nullable(),
  kind: z.enum(['differs', 'unowned', 'never-ran']),
  billedSeconds: z.number(),
  engineSeconds: z.number(),
  fixed: z.boolean(),
});
export type UsageDifference = z.infer<typeof UsageDifference>;

/** A runner's usage reconciliation over [since, until): each difference and a summary. */
export const UsageReconciliation = z.object({
  runnerId: z.string(),
  since: z.string(),
  until: z.string(),
  /** Copies compared with the engine's record, and those within a second of it. */
  copies: z.number().int(),
  within: z.number().int(),
  /** Copies with no engine record to judge by: live ones the engine is still making or removing, ended ones removed before records were kept. */
  unjudged: z.number().int(),
  billedSeconds: z.number(),
  engineSeconds: z.number(),
  differences: z.array(UsageDifference),
  /** Fixes left for the next pass (each pass makes at most a bounded number). */
  fixesLeft: z.boolean(),
});
export type UsageReconciliation = z.infer<typeof UsageReconciliation>;

export const UsageReconcileBody = z.object({ since: z.iso.datetime({ offset: true }) });
