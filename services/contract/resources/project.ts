import { z } from 'zod';
import { DateTime, Id, Uri } from '../common.js';

// Spec 2.2.

export const Visibility = z.enum(['private', 'public']);

/** A slug's form (spec 2.2): what the service refuses with 422 `format`, and the tool before it does any work. */
export const SLUG_FORMAT = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){1,38}[a-z0-9]$/;
export const SLUG_FORMAT_RULE = '3 to 40 lower-case letters, digits and single hyphens, starting and ending with a letter or digit';

export const Project = z.object({
  id: Id,
  /** The room's address. Format, reserved and banned slugs are refused by the service (422), not here. */
  slug: z.string().min(3).max(40),
  name: z.string(),
  visibility: Visibility,
  liveBuildId: Id.nullable(),
  roomUrl: Uri,
  createdAt: DateTime,
});
export type Project = z.infer<typeof Project>;
