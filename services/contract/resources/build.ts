import { z } from 'zod';
import { DateTime, Id, Obj } from '../common.js';
import { Manifest } from '../manifest/manifest.schema.js';

// Spec 2.3.

export const BuildKind = z.enum(['container', 'static']);

/** The longest note a build takes (createBuild's `note`, `pitch deploy --note`). */
export const maxBuildNoteChars = 200;

export const Build = z.object({
  id: Id,
  projectId: Id,
  kind: BuildKind,
  manifest: Manifest,
  sizeBytes: z.number().int(),
  /** At most maxBuildNoteChars on input. */
  note: z.string().nullable(),
  live: z.boolean(),
  createdAt: DateTime,
  /**
   * What the build is, by content (issue 29; not in the spec's list): a container build's image
   * id (`sha256:` and the digest of its config, as the bundle check read it), which an unchanged
   * image keeps from build to build; a static build's digest of its files' paths and contents
   * (static-digest.ts), null for one made before it was recorded. `pitch deploy` compares it with
   * what it built to tell an unchanged redeploy, which it then does not upload.
   */
  digest: z.string().nullable(),
  /**
   * A build exists only whole (createBuild refuses what would not be), so its state is where it
   * stands: `live` (what the room serves) or `ready` (can be made live).
   */
  state: z.enum(['live', 'ready']),
  /**
   * What the platform would have the builder look at, never stopping the build: the manifest's
   * advisory notes (codes as `pitch validate` gives them) and each story step whose rehearsal failed
   * (`rehearsal-failed`). Empty when there is nothing to say.
   */
  problems: z.array(z.object({ code: z.string(), message: z.string() })),
});
export type Build = z.infer<typeof Build>;

export const BuildHistory = Build.extend({
  deployedBy: Obj.nullable(),
  /** Each time the build was made live. */
  releases: z.array(Obj),
});
export type BuildHistory = z.infer<typeof BuildHistory>;

/** What a step's rehearsal came to; `not-reported` is never sent, the platform says it for a build without one. */
export const RehearsedResult = z.enum(['passed', 'failed', 'nothing-to-run']);

/**
 * What `pitch deploy` saw rehearsing the build (createBuild `rehearsal`): its health path, then
 * each story step's calls in order. Steps are named by the manifest's story ids; naming one the
 * manifest does not have is refused (400, the step's path in `issues`).
 */
export const Rehearsal = z.object({
  /** The tool and its version, e.g. `pitch/0.4.0`. */
  tool: z.string().min(1).max(100),
  at: DateTime,
  health: z.object({ path: z.string().max(500), status: z.number().int(), ms: z.number().int().min(0) }).nullable(),
  steps: z
    .array(
      z.object({
        id: z.string().min(1).max(40),
        result: RehearsedResult,
        calls: z.array(z.object({ call: z.string().max(600), status: z.number().int(), ms: z.number().int().min(0) })).max(8),
      }),
    )
    .max(20),
});
export type Rehearsal = z.infer<typeof Rehearsal>;

/** The longest manifest text createBuild takes beside the digest (a manifest of about 1,500 layers); a longer one is read from the registry. */
export const maxSentManifestChars = 262_144;

/**
 * An image pushed to the platform's registry: its manifest's digest (sha256, lowercase hex), and
 * optionally the manifest's text as pushed. The platform takes that text only when its sha256 is
 * the digest (then it asks the registry only whether the project's repository holds it); any
 * other text is ignored and the manifest read from the registry.
 */
export const PushedImage = z.object({
  digest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  manifest: z.string().max(maxSentManifestChars).optional(),
});
export type PushedImage = z.infer<typeof PushedImage>;
