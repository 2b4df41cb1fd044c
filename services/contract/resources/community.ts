import { z } from 'zod';
import { DateTime, Id, Obj, Uri } from '../common.js';

// Spec 2.9: community card, listing, profile, notices and the projects' arrangement. A cover image
// (PNG, JPEG or WebP, up to 1 MB) is checked by the upload, not here.

export const CardStatus = z.enum(['draft', 'listed', 'blocked', 'pulled', 'pending']);
export type CardStatus = z.infer<typeof CardStatus>;

export const Card = z.object({
  projectId: Id,
  title: z.string(),
  line: z.string(),
  cover: Obj.nullable(),
  status: CardStatus,
  rejectReason: z.string().nullable(),
  submittedAt: DateTime.nullable(),
  reviewedAt: DateTime.nullable(),
  warnings: z.array(Obj),
  /** The part and reason of each failed check. */
  blocked: z.array(Obj),
  /** A new cover is held back until its own check passes. */
  coverPending: z.boolean(),
  hidden: z.boolean(),
  appealable: z.boolean(),
  appeal: Obj.nullable(),
  publicUrl: Uri,
  /** Whether suggested wording is available. */
  suggest: z.boolean(),
  updatedAt: DateTime.nullable(),
});
export type Card = z.infer<typeof Card>;

export const ListingCheck = z.object({
  outcome: z.enum(['listed', 'blocked', 'pending', 'already', 'refused']),
  findings: z.array(Obj),
  warnings: z.array(Obj),
  said: z.array(z.string()),
});
export type ListingCheck = z.infer<typeof ListingCheck>;

/** A listed project as anyone sees it. It names no builder. */
export const PublicListing = z.object({
  slug: z.string(),
  title: z.string(),
  line: z.string(),
  url: Uri,
  /** Whether a cover is served at /api/community/projects/:slug/cover. */
  cover: z.boolean(),
  listedAt: DateTime,
  credit: z.string().nullable().optional(),
});
export type PublicListing = z.infer<typeof PublicListing>;

export const PublicProfile = z.object({
  handle: z.string(),
  name: z.string(),
  bio: z.string().nullable(),
  image: Uri.nullable(),
  projects: z.array(Obj),
});
export type PublicProfile = z.infer<typeof PublicProfile>;

/** One's own community profile. */
export const Profile = z.object({
  handle: z.string().nullable(),
  bio: z.string().nullable(),
});
export type Profile = z.infer<typeof Profile>;

export const NoticeKind = z.enum([
  'listing.blocked',
  'listing.pulled',
  'listing.takedown',
  'appeal.upheld',
  'appeal.denied',
  'webhook.disabled',
  'webhook.added',
]);

export const Notice = z.object({
  id: Id,
  kind: NoticeKind,
  title: z.string(),
  body: z.string(),
  href: z.string().nullable(),
  createdAt: DateTime,
  readAt: DateTime.nullable(),
});
export type Notice = z.infer<typeof Notice>;

/** A project's community standing, as each Arrangement project carries it. */
export const CommunityStanding = z.enum(['unlisted', 'listed', 'blocked', 'pulled', 'pending']);

export const Arrangement = z.object({
  groups: z.array(Obj),
  /** Each carries its community standing (CommunityStanding). */
  projects: z.array(Obj),
});
export type Arrangement = z.infer<typeof Arrangement>;
