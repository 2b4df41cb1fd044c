import { z } from 'zod';
import { Id, Uri } from '../common.js';
import { Arrangement, Notice, Profile, PublicListing, PublicProfile } from '../resources/community.js';
import { route } from '../route.js';
import { nameText, publicLines } from '../storable-text.js';

// Spec 4.5: notices, profile, the projects' arrangement, reports, and the open community endpoints.

const GroupName = nameText(40);
const ListedSlug = z.string().min(1).max(63);
/**
 * A group as arrangeProjects places it (the spec leaves the shape to us): its id and the ids of
 * the projects it starts with, in order; each ids list at most 100 (spec 8).
 */
const GroupPlacement = z.object({ id: z.string(), projects: z.array(z.string()).max(100) });
/** A public bio's length; the spec does not give one (docs/decisions/profiles-and-arrangement.md). */
// A bio is shown on the person's public profile: cleaned like a card's words, line breaks kept.
const Bio = publicLines(500);

export const communityRoutes = {
  listNotices: route({
    operation: 'listNotices',
    method: 'GET',
    path: '/api/notices',
    status: 200,
    tag: 'community',
    summary: 'Own notices, newest first, the last 50.',
    reply: z.array(Notice),
  }),
  readNotices: route({
    operation: 'readNotices',
    method: 'POST',
    path: '/api/notices/read',
    status: 200,
    tag: 'community',
    summary: 'Marks the named notices read (all when `ids` is omitted); answers how many changed.',
    body: z.object({ ids: z.array(z.string()).max(50).optional() }),
    reply: z.object({ read: z.number().int() }),
  }),
  communityPass: route({
    operation: 'communityPass',
    method: 'POST',
    path: '/api/community/pass',
    status: 200,
    tag: 'community',
    summary: 'A one-time address back into a listed room, signed in; for any signed-in person; 404 if not listed.',
    body: z.object({ slug: ListedSlug }),
    reply: z.object({ url: Uri }),
    errors: [404],
  }),
  getProfile: route({
    operation: 'getProfile',
    method: 'GET',
    path: '/api/me/profile',
    status: 200,
    tag: 'community',
    summary: 'Own community handle and bio.',
    reply: Profile,
  }),
  setProfile: route({
    operation: 'setProfile',
    method: 'POST',
    path: '/api/me/profile',
    status: 200,
    tag: 'community',
    summary: 'Sets the handle (slug rules, unique among people) and bio; 422 format, reserved, impersonation, banned or taken.',
    body: z.object({ handle: z.string().min(3).max(40), bio: Bio.nullable() }),
    reply: Profile,
    errors: [422],
  }),
  getArrangement: route({
    operation: 'getArrangement',
    method: 'GET',
    path: '/api/arrangement',
    status: 200,
    tag: 'community',
    summary: 'Ungrouped projects first, then each group; an unplaced project comes first, newest first.',
    reply: Arrangement,
  }),
  arrangeProjects: route({
    operation: 'arrangeProjects',
    method: 'POST',
    path: '/api/arrangement',
    status: 200,
    tag: 'community',
    summary:
      'Places projects; a repeated id is 422; a foreign project or group is 404 and nothing moves; what is left out keeps its place after what was given.',
    body: z.object({ ungrouped: z.array(z.string()).max(500), groups: z.array(GroupPlacement).max(30) }),
    reply: Arrangement,
    errors: [404, 422],
  }),
  createGroup: route({
    operation: 'createGroup',
    method: 'POST',
    path: '/api/groups',
    status: 200,
    tag: 'community',
    summary: 'Adds a group last; at most 30 groups.',
    body: z.object({ name: GroupName }),
    reply: Arrangement,
    errors: [422],
  }),
  renameGroup: route({
    operation: 'renameGroup',
    method: 'POST',
    path: '/api/groups/:groupId',
    status: 200,
    tag: 'community',
    summary: 'Renames a group.',
    params: z.object({ groupId: z.string() }),
    body: z.object({ name: GroupName }),
    reply: Arrangement,
    errors: [404],
  }),
  deleteGroup: route({
    operation: 'deleteGroup',
    method: 'POST',
    path: '/api/groups/:groupId/delete',
    status: 200,
    tag: 'community',
    summary: 'Deletes a group; its projects move to the end of the ungrouped.',
    params: z.object({ groupId: z.string() }),
    reply: Arrangement,
    errors: [404],
  }),
  reportProject: route({
    operation: 'reportProject',
    method: 'POST',
    path: '/api/reports',
    status: 200,
    tag: 'community',
    summary: 'Reports a listed project; 404 for an unknown project; 429 past 20 reports by one person in 24 hours.',
    body: z.object({
      slug: ListedSlug,
      reason: z.enum(['phishing', 'impersonation', 'abuse', 'illegal', 'spam', 'other']),
      detail: z.string().max(1000).optional(),
    }),
    reply: z.object({ id: Id }),
    errors: [404, 429],
  }),
  communityProfile: route({
    operation: 'communityProfile',
    method: 'GET',
    path: '/api/community/people/:handle',
    status: 200,
    open: true,
    tag: 'community',
    summary: "A builder's public profile; 404 for an unknown handle.",
    params: z.object({ handle: z.string() }),
    reply: PublicProfile,
    errors: [404],
  }),
  communityListings: route({
    operation: 'communityListings',
    method: 'GET',
    path: '/api/community/listings',
    status: 200,
    open: true,
    tag: 'community',
    summary: "Listed projects, newest listing first; cached for a minute; readable from the service's own website in a browser.",
    reply: z.array(PublicListing),
  }),
  communityCover: route({
    operation: 'communityCover',
    method: 'GET',
    path: '/api/community/projects/:slug/cover',
    status: 200,
    open: true,
    tag: 'community',
    summary: "A listed project's cover image.",
    params: z.object({ slug: z.string() }),
    errors: [404],
  }),
};
