import type { Config } from '../../core/infra/config.js';
import type { Db, Sql } from '../../core/infra/db.js';
import { notFound } from '../../core/rules/errors.js';
import { isUuid } from '../../core/infra/ids.js';
import { lockTeam, membersOf, ownerCount, removeMembershipRow, roleIn, setRoleRow, type Role } from '../../data/teams.sql.js';
import { recordTeamEvent } from '../../data/workspace-history.sql.js';
import type { SessionAuth } from '../../data/sessions.sql.js';
import { asMember, asOwner } from './team-access.js';
import { teamRule } from './teams.service.js';
import { memberView, personView } from './workspace-views.js';

// A workspace's people (spec 4.3): listing them, their roles, removing one.

export async function listMembers(sql: Sql, config: Config, auth: SessionAuth, workspaceId: string) {
  await asMember(sql, auth.personId, workspaceId);
  return (await membersOf(sql, workspaceId)).map((m) => memberView(config, m, auth.personId));
}

/** The people of the active workspace, as anyone in it sees them. */
export async function workspacePeople(sql: Sql, config: Config, auth: SessionAuth) {
  return (await membersOf(sql, auth.workspaceId)).map((m) => personView(config, m));
}

/** The member `userId` of a held team, with their role; 404 when they are not in it. */
async function memberRole(tx: Db, workspaceId: string, userId: string): Promise<Role> {
  if (!isUuid(userId)) throw notFound();
  const role = await roleIn(tx, workspaceId, userId);
  if (!role) throw notFound();
  return role;
}

export async function setMemberRole(sql: Sql, config: Config, auth: SessionAuth, workspaceId: string, userId: string, role: Role) {
  await asOwner(sql, auth.personId, workspaceId, 'setMemberRole');
  await sql.begin(async (tx) => {
    const team = await lockTeam(tx, workspaceId);
    if (!team) throw notFound();
    const was = await memberRole(tx, workspaceId, userId);
    if (was === role) return;
    if (team.kind === 'personal') throw teamRule('your own workspace has nobody else; its owner stays its owner');
    if (was === 'owner' && (await ownerCount(tx, workspaceId)) === 1)
      throw teamRule('a team keeps an owner: make someone else an owner first');
    await setRoleRow(tx, workspaceId, userId, role);
    await recordTeamEvent(tx, {
      workspaceId,
      kind: 'member.role',
      actorId: auth.personId,
      subjectId: userId,
      detail: { from: was, to: role },
    });
  });
  return listMembers(sql, config, auth, workspaceId);
}

/** Takes effect on the removed person's next request, whatever it carries (cookie or token). */
export async function removeMember(sql: Sql, config: Config, auth: SessionAuth, workspaceId: string, userId: string) {
  await asOwner(sql, auth.personId, workspaceId, 'removeMember');
  await sql.begin(async (tx) => {
    const team = await lockTeam(tx, workspaceId);
    if (!team) throw notFound();
    await memberRole(tx, workspaceId, userId);
    if (userId === auth.personId)
      throw teamRule(team.kind === 'personal' ? 'your own workspace is never left' : 'you cannot remove yourself; leave the team instead');
    await removeMembershipRow(tx, workspaceId, userId);
    await recordTeamEvent(tx, { workspaceId, kind: 'member.remove', actorId: auth.personId, subjectId: userId });
  });
  return listMembers(sql, config, auth, workspaceId);
}
