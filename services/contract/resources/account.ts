import { z } from 'zod';
import { DateTime, Email, Id, Obj, Uri } from '../common.js';
import { nameText } from '../storable-text.js';

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
  /** `web` (a browser), `cli` (the command-line tool) or `connector` (an AI-assistant connector token). */
  kind: z.enum(['web', 'cli', 'connector']),
  /** A connector token made read-only: it reads, never changes. */
  readOnly: z.boolean(),
  /** The name given to a connector token when it was made; null for other sessions and unnamed tokens. */
  connectorName: z.string().nullable(),
  /** When a request last used the session (to the minute); null while never used since it was opened. */
  lastUsedAt: DateTime.nullable(),
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

/** A passkey's name: what the person calls the device or manager that holds it. */
export const PasskeyName = nameText(60);

/** One of the person's passkeys. The credential and its key are never shown. */
export const Passkey = z.object({
  id: Id,
  /** What the person called it (given at registration, renamable); null for one never named. */
  name: z.string().nullable(),
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
