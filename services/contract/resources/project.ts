import { z } from 'zod';
import { DateTime, Id, Uri } from '../common.js';

// Spec 2.2.

export const Visibility = z.enum(['private', 'public']);

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
