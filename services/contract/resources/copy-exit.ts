import { z } from 'zod';
import { DateTime, Id } from '../common.js';

// Issue 13 (not in the spec): a copy of a container demo that exited on its own, as its builder
// reads it (GET /api/projects/:projectId/exits, `pitch logs`).

export const CopyExit = z.object({
  copyId: Id,
  buildId: Id,
  /** `crash`: it had answered its health path, then stopped; `start`: it exited before it did. */
  when: z.enum(['crash', 'start']),
  exitCode: z.number().int().nullable(),
  /** Killed for using more memory than a copy has. */
  oom: z.boolean(),
  /** Its last lines of output (stdout and stderr; at most 50 lines, 8 KB), run.env's secrets as `***`. */
  output: z.string(),
  at: DateTime,
});
export type CopyExit = z.infer<typeof CopyExit>;
