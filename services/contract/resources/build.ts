import { z } from 'zod';
import { DateTime, Id, Obj } from '../common.js';
import { Manifest } from '../manifest/manifest.schema.js';

// Spec 2.3.

export const BuildKind = z.enum(['container', 'static']);

export const Build = z.object({
  id: Id,
  projectId: Id,
  kind: BuildKind,
  manifest: Manifest,
  sizeBytes: z.number().int(),
  /** At most 200 chars on input. */
  note: z.string().nullable(),
  live: z.boolean(),
  createdAt: DateTime,
});
export type Build = z.infer<typeof Build>;

export const BuildHistory = Build.extend({
  deployedBy: Obj.nullable(),
  /** Each time the build was made live. */
  releases: z.array(Obj),
});
export type BuildHistory = z.infer<typeof BuildHistory>;
