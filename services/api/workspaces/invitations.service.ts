import type { Config } from '../../core/infra/config.js';
import type { Sql } from '../../core/infra/db.js';
import { notFound } from '../../core/rules/errors.js';
import { planOf } from '../../core/rules/plans.js';
import {
  insertInvitation,
  invitationFor,
  isInvited,
  isMemberByEmail,
  markInvitationUsed,
  revokeInvitationRow,
  waitingInvitations,
} from '../../data/invitations.sql.js';
import { activateWorkspace, addMemberRow, lockTeam, memberCount, seatsTaken } from '../../data/teams.sql.js';
import { verifiedEmailOf } from '../../data/people.sql.js';
import { recordTeamEvent } from '../../data/workspace-history.sql.js';
import { effectivePlan } from '../../data/workspaces.sql.js';
import type { SessionAuth } from '../../data/sessions.sql.js';
import { asOwner } from './team-access.js';
import { teamRule } from './teams.service.js';
import { invitationToYouView, invitationView, workspaceView } from './workspace-views.js';

// Invitations (spec 2.6, 3 Invitation, 4.3). Nothing is emailed: the owner hands the address on.
// A waiting invitation holds a seat, so members plus waiting invitations never exceed the seats.

export async function listInvitations(sql: Sql, auth: SessionAuth, workspaceId: string) {
  await asOwner(sql, auth.personId, workspaceId, 'listInvitations');
  return (await waitingInvitations(sql, workspaceId)).map(invitationView);
}

/** The address an invitation is opened at: the platform's page for it, with its one-use key. */
export const invitationUrl = (config: Config, key: string) => `${config.publicUrl}/invitations/${key}`;

export async function createInvitation(sql: Sql, config: Config, auth: SessionAuth, workspaceId: string, email: string) {
  await asOwner(sql, auth.personId, workspaceId, 'createInvitation');
  const address = email.trim().toLowerCase();
  const { id, key } = await sql.begin(async (tx) => {
    const team = await lockTeam(tx, workspaceId);
    if (!team) throw notFound();
    if (team.kind === 'personal') throw teamRule('your own workspace has nobody else; make a team to work with others');
    if (await isMemberByEmail(tx, workspaceId, address)) throw teamRule(`${address} is already in the team`);
    if (await isInvited(tx, workspaceId, address)) throw teamRule(`${address} is already invited`);
    const seats = planOf(effectivePlan(team)).seats;
    if ((await seatsTaken(tx, workspaceId)) >= seats)
      throw teamRule(`every seat is taken (${seats} on the team's plan, waiting invitations included)`);
    const made = await insertInvitation(tx, { workspaceId, email: address, invitedBy: auth.personId });
    await recordTeamEvent(tx, {
      workspaceId,
      kind: 'invitation.create',
      actorId: auth.personId,
      detail: { email: address, invitationId: made.id },
    });
    return made;
  });
  const [invitation] = (await waitingInvitations(sql, workspaceId)).filter((i) => i.id === id);
  return { invitation: invitationView(invitation), url: invitationUrl(config, key) };
}

export async function revokeInvitation(sql: Sql, auth: SessionAuth, workspaceId: string, invitationId: string) {
  await asOwner(sql, auth.personId, workspaceId, 'revokeInvitation');
  await sql.begin(async (tx) => {
    const revoked = await revokeInvitationRow(tx, workspaceId, invitationId);
    if (!revoked) throw notFound();
    // Revoking again (or after it was used or ran out) changes nothing and answers as the first time did.
    if (revoked === 'revoked')
      await recordTeamEvent(tx, { workspaceId, kind: 'invitation.revoke', actorId: auth.personId, detail: { invitationId } });
  });
  return (await waitingInvitations(sql, workspaceId)).map(invitationView);
}

/** viewInvitation, by its id or its address's key: 404 when used, revoked, expired or someone else's. */
export async function viewInvitation(sql: Sql, auth: SessionAuth, idOrKey: string) {
  const email = await verifiedEmailOf(sql, auth.personId);
  const found = email ? await invitationFor(sql, idOrKey, email) : null;
  if (!found) throw notFound();
  return invitationToYouView(found);
}

/**
 * acceptInvitation: the caller joins as a member, once, while a seat is free, and the session
 * switches to the team.
 */
export async function acceptInvitation(sql: Sql, auth: SessionAuth, idOrKey: string) {
  const email = await verifiedEmailOf(sql, auth.personId);
  const seen = email ? await invitationFor(sql, idOrKey, email) : null;
  if (!email || !seen) throw notFound();
  const joined = await sql.begin(async (tx) => {
    // The team first, then the invitation: the order deleteTeam takes them in.
    const team = await lockTeam(tx, seen.workspaceId);
    const invitation = team && (await invitationFor(tx, seen.id, email, true));
    if (!team || !invitation) throw notFound();
    const seats = planOf(effectivePlan(team)).seats;
    // Members only: waiting invitations hold seats against new invitations, and after a plan
    // shrinks the first to accept takes what is left.
    if ((await memberCount(tx, team.id)) >= seats) throw teamRule(`no seat is free (${seats} on the team's plan)`);
    await markInvitationUsed(tx, invitation.id, auth.personId);
    await addMemberRow(tx, team.id, auth.personId, invitation.role);
    await recordTeamEvent(tx, {
      workspaceId: team.id,
      kind: 'member.join',
      actorId: auth.personId,
      subjectId: auth.personId,
      detail: { invitationId: invitation.id },
    });
    return { id: team.id, name: team.name, kind: team.kind, role: invitation.role };
  });
  await activateWorkspace(sql, auth.sessionId, joined.id);
  return workspaceView(joined, joined.id);
}
