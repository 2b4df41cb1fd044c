import { z } from 'zod';
import { DateTime, Email, Id, Uri } from '../common.js';

// Spec 2.6.

export const Role = z.enum(['owner', 'member']);

export const Workspace = z.object({
  id: Id,
  name: z.string(),
  kind: z.enum(['personal', 'team']),
  role: Role,
  active: z.boolean(),
  /** The brand name and whether it has a logo; absent or null without a brand. */
  brand: z.object({ name: z.string().nullable(), hasLogo: z.boolean() }).nullable().optional(),
});
export type Workspace = z.infer<typeof Workspace>;

export const Member = z.object({
  userId: Id,
  displayName: z.string(),
  email: Email,
  image: Uri.nullable(),
  role: Role,
  joinedAt: DateTime,
  /** The caller. */
  you: z.boolean(),
});
export type Member = z.infer<typeof Member>;

/** A waiting invitation, as the team's owners see it. */
export const Invitation = z.object({
  id: Id,
  email: Email,
  role: Role,
  /** The inviter's display name. */
  invitedBy: z.string(),
  createdAt: DateTime,
  expiresAt: DateTime,
});
export type Invitation = z.infer<typeof Invitation>;

/** An invitation as the invited person sees it before accepting. */
export const InvitationView = z.object({
  id: Id,
  workspaceId: Id,
  workspaceName: z.string(),
  invitedBy: z.string(),
  expiresAt: DateTime,
});
export type InvitationView = z.infer<typeof InvitationView>;

/** Someone sharing a workspace with the caller. */
export const Person = z.object({
  userId: Id,
  displayName: z.string(),
  image: Uri.nullable(),
});
export type Person = z.infer<typeof Person>;
