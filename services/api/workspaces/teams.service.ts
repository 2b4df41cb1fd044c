import type { Sql } from '../../core/infra/db.js';
import { notFound, refused } from '../../core/rules/errors.js';
import {
  activateWorkspace,
  deleteTeamRows,
  liveProjectsOf,
  insertTeam,
  lockTeam,
  ownerCount,
  ownsTeamWithoutPlan,
  removeMembershipRow,
  renameWorkspaceRow,
  roleIn,
} from '../../data/teams.sql.js';
import { lockPerson } from '../../data/people.sql.js';
import { recordTeamEvent } from '../../data/workspace-history.sql.js';
import type { SessionAuth } from '../../data/sessions.sql.js';
import { asMember, asOwner } from './team-access.js';
import { workspaceView } from './workspace-views.js';

// Teams as wholes (spec 4.3): making one, naming it, switching to it, leaving it, deleting it.

/** 422 `team`, with the rule that refused it. */
export const teamRule = (detail: string) => refused(422, 'team', detail);

/**
 * createTeam: the caller owns it, it has no plan, and the calling session switches to it (as
 * Vercel and Linear do), so what the caller does next happens in the team.
 */
export async function createTeam(sql: Sql, auth: SessionAuth, name: string) {
  const id = await sql.begin(async (tx) => {
    // Held so that two requests at once cannot both find no unlicensed team.
    await lockPerson(tx, auth.personId);
    if (await ownsTeamWithoutPlan(tx, auth.personId)) {
      throw refused(422, 'unlicensed', 'you already own a team without a plan; give it a plan or delete it first');
    }
    const teamId = await insertTeam(tx, auth.personId, name);
    await recordTeamEvent(tx, { workspaceId: teamId, kind: 'team.create', actorId: auth.personId, detail: { name } });
    return teamId;
  });
  await activateWorkspace(sql, auth.sessionId, id);
  return workspaceView({ id, name, kind: 'team', role: 'owner' }, id);
}

export async function renameWorkspace(sql: Sql, auth: SessionAuth, workspaceId: string, name: string) {
  const w = await asOwner(sql, auth.personId, workspaceId, 'renameWorkspace');
  await sql.begin(async (tx) => {
    await renameWorkspaceRow(tx, workspaceId, name);
    if (w.kind === 'team')
      await recordTeamEvent(tx, { workspaceId, kind: 'team.rename', actorId: auth.personId, detail: { from: w.name, to: name } });
  });
  return workspaceView({ ...w, name }, auth.workspaceId);
}

/** The session acts on this workspace from its next request (spec 1 leaves the switch unshown). */
export async function activate(sql: Sql, auth: SessionAuth, workspaceId: string) {
  const w = await asMember(sql, auth.personId, workspaceId);
  await activateWorkspace(sql, auth.sessionId, workspaceId);
  return workspaceView(w, workspaceId);
}

export async function leaveTeam(sql: Sql, auth: SessionAuth, workspaceId: string) {
  await asMember(sql, auth.personId, workspaceId);
  await sql.begin(async (tx) => {
    const team = await lockTeam(tx, workspaceId);
    if (!team) throw notFound();
    if (team.kind === 'personal') throw teamRule('your own workspace is never left');
    const myRole = await roleIn(tx, workspaceId, auth.personId);
    if (!myRole) throw notFound();
    if (myRole === 'owner' && (await ownerCount(tx, workspaceId)) === 1) {
      throw teamRule('a team keeps an owner: make someone else an owner before you leave, or delete the team');
    }
    await removeMembershipRow(tx, workspaceId, auth.personId);
    await recordTeamEvent(tx, { workspaceId, kind: 'member.leave', actorId: auth.personId, subjectId: auth.personId });
  });
  return { left: true as const };
}

/** "a live project: acme-crm", "3 live projects: a, b and c", "5 live projects: a, b, c and 2 more". */
function liveList({ slugs, count }: { slugs: string[]; count: number }): string {
  const named = count > slugs.length ? [...slugs, `${count - slugs.length} more`] : slugs;
  const list = named.length > 1 ? `${named.slice(0, -1).join(', ')} and ${named.at(-1)}` : named[0];
  return `${count === 1 ? 'a live project' : `${count} live projects`}: ${list}`;
}

/**
 * deleteTeam: only a team, by an owner, confirmed with its name, with no live project and no plan
 * (a team's plan is cancelled when the operator takes it away: `npm run ops -- plan <id> none`).
 */
export async function deleteTeam(sql: Sql, auth: SessionAuth, workspaceId: string, confirm: string) {
  await asOwner(sql, auth.personId, workspaceId, 'deleteTeam');
  await sql.begin(async (tx) => {
    const team = await lockTeam(tx, workspaceId);
    if (!team) throw notFound();
    if (team.kind === 'personal') throw teamRule('your own workspace is not deleted here; it goes with your account');
    if (confirm !== team.name) throw refused(422, 'confirm', "type the team's name to delete it");
    if (team.plan !== null) throw teamRule("the team's plan must be cancelled first");
    const live = await liveProjectsOf(tx, workspaceId);
    if (live.count) throw teamRule(`the team still has ${liveList(live)}; delete ${live.count === 1 ? 'it' : 'them'} first`);
    await recordTeamEvent(tx, { workspaceId, kind: 'team.delete', actorId: auth.personId });
    await deleteTeamRows(tx, workspaceId);
  });
  return { deleted: true as const };
}
