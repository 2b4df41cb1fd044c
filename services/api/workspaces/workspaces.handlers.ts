import type { HandlerGroup } from '../routing/handler.js';
import { billingOf } from './billing.service.js';
import { workspacesOf } from '../../data/workspaces.sql.js';
import { activate, createTeam, deleteTeam, leaveTeam, renameWorkspace } from './teams.service.js';
import { listMembers, removeMember, setMemberRole, workspacePeople } from './members.service.js';
import { acceptInvitation, createInvitation, listInvitations, revokeInvitation, viewInvitation } from './invitations.service.js';
import { photoFor } from '../account/photo.service.js';
import { sendStoredImage } from '../../core/infra/http/send-stored-image.js';
import { notFound } from '../../core/rules/errors.js';
import { workspaceView } from './workspace-views.js';
import { brandBadges } from '../../data/brand.sql.js';

export const workspaceHandlers = {
  listWorkspaces: async ({ deps, auth }) => {
    const rows = await workspacesOf(deps.sql, auth.personId);
    const brands = await brandBadges(
      deps.sql,
      rows.map((w) => w.id),
    );
    return rows.map((w) => ({ ...workspaceView(w, auth.workspaceId), brand: brands.get(w.id) ?? null }));
  },
  getBilling: ({ deps, auth }) => billingOf(deps.sql, auth.workspaceId),

  createTeam: ({ deps, auth, body }) => createTeam(deps.sql, auth, body.name),
  activateWorkspace: ({ deps, auth, params }) => activate(deps.sql, auth, params.workspaceId),
  renameWorkspace: ({ deps, auth, params, body }) => renameWorkspace(deps.sql, auth, params.workspaceId, body.name),
  leaveTeam: ({ deps, auth, params }) => leaveTeam(deps.sql, auth, params.workspaceId),
  deleteTeam: ({ deps, auth, params, body }) => deleteTeam(deps.sql, auth, params.workspaceId, body.confirm),

  listMembers: ({ deps, auth, params }) => listMembers(deps.sql, deps.config, auth, params.workspaceId),
  setMemberRole: ({ deps, auth, params, body }) => setMemberRole(deps.sql, deps.config, auth, params.workspaceId, params.userId, body.role),
  removeMember: ({ deps, auth, params }) => removeMember(deps.sql, deps.config, auth, params.workspaceId, params.userId),
  workspacePeople: ({ deps, auth }) => workspacePeople(deps.sql, deps.config, auth),

  listInvitations: ({ deps, auth, params }) => listInvitations(deps.sql, auth, params.workspaceId),
  createInvitation: ({ deps, auth, params, body }) => createInvitation(deps.sql, deps.config, auth, params.workspaceId, body.email),
  revokeInvitation: ({ deps, auth, params }) => revokeInvitation(deps.sql, auth, params.workspaceId, params.invitationId),
  viewInvitation: ({ deps, auth, params }) => viewInvitation(deps.sql, auth, params.invitationId),
  acceptInvitation: ({ deps, auth, params }) => acceptInvitation(deps.sql, auth, params.invitationId),

  /** Cached by the member's browser for long: the address changes with the bytes (`?v=`). */
  personPhoto: async ({ deps, auth, params, req, reply }) => {
    const photo = await photoFor(deps.sql, auth.personId, params.userId);
    const sent = await sendStoredImage(req, reply, deps.storage, photo, 'private, max-age=31536000, immutable');
    if (!sent) throw notFound();
    return sent;
  },
} satisfies HandlerGroup;
