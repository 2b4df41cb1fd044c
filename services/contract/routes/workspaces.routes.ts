import { z } from 'zod';
import { Email, Uri } from '../common.js';
import { Billing, ContainerUsage } from '../resources/billing.js';
import { Invitation, InvitationView, Member, Person, Role, Workspace } from '../resources/workspace.js';
import { route } from '../route.js';
import { WorkspaceParams } from './params.js';

const MemberParams = z.object({ workspaceId: z.string(), userId: z.string() });
const InvitationParams = z.object({ workspaceId: z.string(), invitationId: z.string() });

// Spec 4.3: workspaces, teams and billing.
export const workspaceRoutes = {
  listWorkspaces: route({
    operation: 'listWorkspaces', method: 'GET', path: '/api/workspaces', status: 200, tag: 'workspaces',
    summary: 'Own workspace first, then teams.',
    reply: z.array(Workspace),
  }),
  getBilling: route({
    operation: 'getBilling', method: 'GET', path: '/api/billing', status: 200, tag: 'workspaces',
    summary: "The active workspace's plan, usage and allowance.",
    reply: Billing,
  }),
  createTeam: route({
    operation: 'createTeam', method: 'POST', path: '/api/workspaces', status: 200, tag: 'workspaces',
    summary: 'A new team with the caller as owner and no plan; 422 unlicensed while the caller owns a team without a plan.',
    body: z.object({ name: z.string().min(1).max(80) }),
    reply: Workspace,
    errors: [422],
  }),
  activateWorkspace: route({
    operation: 'activateWorkspace', method: 'POST', path: '/api/workspaces/:workspaceId/activate', status: 200, tag: 'workspaces',
    summary: "Makes this workspace the calling session's active one: every endpoint acts on it from the next request (spec 1 leaves the switch unshown; docs/decisions.md).",
    params: WorkspaceParams,
    reply: Workspace,
    errors: [404],
  }),
  renameWorkspace: route({
    operation: 'renameWorkspace', method: 'POST', path: '/api/workspaces/:workspaceId/name', status: 200, tag: 'workspaces',
    summary: 'Renames the workspace; owner only.',
    params: WorkspaceParams,
    body: z.object({ name: z.string().min(1).max(80) }),
    reply: Workspace,
    errors: [403, 404, 422],
  }),
  listMembers: route({
    operation: 'listMembers', method: 'GET', path: '/api/workspaces/:workspaceId/members', status: 200, tag: 'workspaces',
    summary: "The workspace's members, owners first.",
    params: WorkspaceParams,
    reply: z.array(Member),
    errors: [404],
  }),
  setMemberRole: route({
    operation: 'setMemberRole', method: 'POST', path: '/api/workspaces/:workspaceId/members/:userId/role', status: 200, tag: 'workspaces',
    summary: "Sets a member's role; owner only (403 permission); 422 team if it would leave no owner.",
    params: MemberParams,
    body: z.object({ role: Role }),
    reply: z.array(Member),
    errors: [403, 404, 422],
  }),
  removeMember: route({
    operation: 'removeMember', method: 'POST', path: '/api/workspaces/:workspaceId/members/:userId/remove', status: 200, tag: 'workspaces',
    summary: 'Removes a member from the next request on; owner only; never yourself.',
    params: MemberParams,
    reply: z.array(Member),
    errors: [403, 404, 422],
  }),
  leaveTeam: route({
    operation: 'leaveTeam', method: 'POST', path: '/api/workspaces/:workspaceId/leave', status: 200, tag: 'workspaces',
    summary: "Leaves a team; 422 team for its last owner or one's own workspace.",
    params: WorkspaceParams,
    reply: z.object({ left: z.literal(true) }),
    errors: [404, 422],
  }),
  listInvitations: route({
    operation: 'listInvitations', method: 'GET', path: '/api/workspaces/:workspaceId/invitations', status: 200, tag: 'workspaces',
    summary: 'Invitations waiting and unexpired; owner only.',
    params: WorkspaceParams,
    reply: z.array(Invitation),
    errors: [403, 404],
  }),
  createInvitation: route({
    operation: 'createInvitation', method: 'POST', path: '/api/workspaces/:workspaceId/invitations', status: 200, tag: 'workspaces',
    summary: 'An invitation address, usable once within 7 days by the person signed in with that verified email; nothing is emailed; holds a seat; owner only; 422 team when seats are full, in the team or already invited.',
    params: WorkspaceParams,
    body: z.object({ email: Email.max(254) }),
    reply: z.object({ invitation: Invitation, url: Uri }),
    errors: [403, 404, 422],
  }),
  revokeInvitation: route({
    operation: 'revokeInvitation', method: 'POST', path: '/api/workspaces/:workspaceId/invitations/:invitationId/revoke', status: 200, tag: 'workspaces',
    summary: 'Revokes an invitation at once; answers those still waiting; owner only.',
    params: InvitationParams,
    reply: z.array(Invitation),
    errors: [403, 404],
  }),
  viewInvitation: route({
    operation: 'viewInvitation', method: 'GET', path: '/api/invitations/:invitationId', status: 200, tag: 'workspaces',
    summary: "An invitation to the caller; 404 if used, revoked, expired or someone else's.",
    params: z.object({ invitationId: z.string() }),
    reply: InvitationView,
    errors: [404],
  }),
  acceptInvitation: route({
    operation: 'acceptInvitation', method: 'POST', path: '/api/invitations/:invitationId/accept', status: 200, tag: 'workspaces',
    summary: "Joins the team as a member, written in the team's record; 422 team when no seat is free.",
    params: z.object({ invitationId: z.string() }),
    reply: Workspace,
    errors: [404, 422],
  }),
  deleteTeam: route({
    operation: 'deleteTeam', method: 'POST', path: '/api/workspaces/:workspaceId/delete', status: 200, tag: 'workspaces',
    summary: "Deletes the team when `confirm` is its name; owner only; 422 team unless no live project and the plan is cancelled; members keep their own workspaces.",
    params: WorkspaceParams,
    body: z.object({ confirm: z.string() }),
    reply: z.object({ deleted: z.literal(true) }),
    errors: [403, 404, 422],
  }),
  workspaceLogo: route({
    operation: 'workspaceLogo', method: 'GET', path: '/api/workspaces/:workspaceId/logo', status: 200, tag: 'workspaces',
    summary: "The workspace's brand logo image.",
    params: WorkspaceParams,
    errors: [404],
  }),
  workspacePeople: route({
    operation: 'workspacePeople', method: 'GET', path: '/api/workspace/people', status: 200, tag: 'workspaces',
    summary: 'The people of the active workspace.',
    reply: z.array(Person),
  }),
  personPhoto: route({
    operation: 'personPhoto', method: 'GET', path: '/api/people/:userId/photo', status: 200, tag: 'workspaces',
    summary: "A person's photo, served only to people sharing a workspace with them.",
    params: z.object({ userId: z.string() }),
    errors: [404],
  }),
  containerUsage: route({
    operation: 'containerUsage', method: 'GET', path: '/api/usage/containers', status: 200, tag: 'workspaces',
    summary: 'Demo container use in the current UTC month.',
    reply: ContainerUsage,
  }),
};
