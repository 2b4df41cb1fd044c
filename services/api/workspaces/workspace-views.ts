import type { Config } from '../../core/infra/config.js';
import { displayNameOf } from '../../data/people.sql.js';
import type { MemberRow } from '../../data/teams.sql.js';
import type { WorkspaceRow } from '../../data/workspaces.sql.js';
import type { InvitationRow } from '../../data/invitations.sql.js';

// The shapes of 2.6 as the contract states them, from the rows the data layer reads.

export const workspaceView = (w: Pick<WorkspaceRow, 'id' | 'name' | 'kind' | 'role'>, activeId: string) => ({
  id: w.id,
  name: w.name,
  kind: w.kind,
  role: w.role,
  active: w.id === activeId,
  brand: null,
});

/**
 * A person's picture: their uploaded photo, at an address that changes with its bytes (so it can
 * be cached for long), served only to people who share a workspace with them.
 */
export const pictureOf = (config: Config, p: { personId: string; photoHash: string | null }) =>
  p.photoHash ? `${config.publicUrl}/api/people/${p.personId}/photo?v=${p.photoHash.slice(0, 16)}` : null;

export const memberView = (config: Config, m: MemberRow, callerId: string) => ({
  userId: m.personId,
  displayName: displayNameOf(m),
  email: m.email,
  image: pictureOf(config, m),
  role: m.role,
  joinedAt: m.joinedAt.toISOString(),
  you: m.personId === callerId,
});

export const personView = (config: Config, m: MemberRow) => ({
  userId: m.personId,
  displayName: displayNameOf(m),
  image: pictureOf(config, m),
});

/** The inviter as the invitation shows them: their name, else their email's local part. */
const inviterOf = (i: InvitationRow) =>
  i.inviterEmail ? displayNameOf({ name: i.inviterName ?? '', email: i.inviterEmail }) : 'a former member';

export const invitationView = (i: InvitationRow) => ({
  id: i.id,
  email: i.email,
  role: i.role,
  invitedBy: inviterOf(i),
  createdAt: i.createdAt.toISOString(),
  expiresAt: i.expiresAt.toISOString(),
});

export const invitationToYouView = (i: InvitationRow & { workspaceName: string }) => ({
  id: i.id,
  workspaceId: i.workspaceId,
  workspaceName: i.workspaceName,
  invitedBy: inviterOf(i),
  expiresAt: i.expiresAt.toISOString(),
});
