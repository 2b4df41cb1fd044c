import { z } from 'zod';
import { DateTime, Email, Id, Obj, Uri } from '../common.js';

// Spec 2.10: the signed-in person.

/** The active workspace as the account reply shows it. */
export const AccountWorkspace = z.object({
  id: Id,
  name: z.string(),
  kind: z.enum(['personal', 'team']),
  role: z.enum(['owner', 'member']),
});

export const Account = z.object({
  userId: Id,
  name: z.string(),
  displayName: z.string(),
  nameChosen: z.boolean().optional(),
  suggestedName: z.string().optional(),
  email: Email,
  emailVerified: z.boolean(),
  image: Uri.nullable(),
  photo: Obj.nullable(),
  providerImage: z.boolean(),
  handle: z.string().nullable(),
  workspace: AccountWorkspace,
  createdAt: DateTime,
});
export type Account = z.infer<typeof Account>;

/** Each provider: set up on the platform or not, linked to this account or not. */
export const SignIns = z.object({
  providers: z.array(Obj),
  passkeys: z.number().int(),
  magicLinks: z.boolean(),
});
export type SignIns = z.infer<typeof SignIns>;

/** One signed-in session. Never carries the cookie's token. */
export const Session = z.object({
  id: Id,
  current: z.boolean(),
  signInMethod: z.string().nullable(),
  userAgent: z.string().nullable(),
  /** Words for the device, read from the user agent. */
  device: z.string(),
  createdAt: DateTime,
  expiresAt: DateTime,
});
export type Session = z.infer<typeof Session>;

/** An owned workspace that stands in the way of deleting the account (spec 4.6 deletable). */
export const DeletionBlocker = z.object({
  workspaceId: Id,
  name: z.string(),
  kind: z.enum(['personal', 'team']),
  /** Projects it holds (not deleted). */
  projects: z.number().int(),
  /** People in it besides the account's owner. */
  people: z.number().int(),
});
export type DeletionBlocker = z.infer<typeof DeletionBlocker>;

/** One of the person's passkeys. The credential and its key are never shown. */
export const Passkey = z.object({
  id: Id,
  /** `multiDevice` (synced by its provider) or `singleDevice`. */
  kind: z.string().nullable(),
  backedUp: z.boolean(),
  createdAt: DateTime,
  lastUsedAt: DateTime.nullable(),
});
export type Passkey = z.infer<typeof Passkey>;

export const Preferences = z.object({
  welcomeSeenAt: DateTime.nullable(),
  feedbackTabFolded: z.boolean(),
});
export type Preferences = z.infer<typeof Preferences>;
