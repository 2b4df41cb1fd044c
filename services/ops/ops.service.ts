import type { Sql } from '../core/infra/db.js';
import { PlanName, planOf } from '../core/rules/plans.js';
import { createSession, type SessionKind } from '../data/sessions.sql.js';
import { ensurePerson, overwriteName } from '../data/people.sql.js';
import { refitProjects } from '../data/projects.sql.js';
import { liveWorkspaceKind, personalWorkspaceOf, planFor, setWorkspacePlan, setWorkspaceSuspended } from '../data/workspaces.sql.js';
import { isUuid } from '../core/infra/ids.js';

// Operator actions. Each takes its dependencies so that tests call the same code the command runs.

/**
 * A new session for the person with `email`, made if new. `name` names a new person (or one with
 * no name yet); an existing name is the one viewers see, so changing it takes `rename` (issue 47:
 * `--name` renamed a builder silently). Refused before anything is made.
 */
export async function issueToken(
  sql: Sql,
  email: string,
  opts: { name?: string; rename?: boolean; kind?: SessionKind; readOnly?: boolean; days?: number },
) {
  const person = await ensurePerson(sql, email, { name: opts.name, verified: true });
  if (opts.name && person.name && person.name !== opts.name && !opts.rename)
    throw new Error(
      `${email} is named ${JSON.stringify(person.name)}, the name viewers see; leave out --name to keep it, or add --rename to change it to ${JSON.stringify(opts.name)}`,
    );
  if (opts.name && person.name !== opts.name) await overwriteName(sql, person.id, opts.name);
  return createSession(sql, {
    personId: person.id,
    kind: opts.kind ?? 'cli',
    readOnly: opts.readOnly,
    days: opts.days ?? 30,
    method: 'operator',
  });
}

async function personalWorkspace(sql: Sql, email: string): Promise<string> {
  const workspaceId = await personalWorkspaceOf(sql, email);
  if (!workspaceId) throw new Error(`no person with email ${email}`);
  return workspaceId;
}

/** A workspace named by its id (a team's, or anyone's), or by its owner's email (their own). */
async function workspaceNamed(sql: Sql, emailOrId: string): Promise<{ id: string; kind: 'personal' | 'team' }> {
  if (emailOrId.includes('@')) return { id: await personalWorkspace(sql, emailOrId), kind: 'personal' };
  const row = isUuid(emailOrId) ? await liveWorkspaceKind(sql, emailOrId) : null;
  if (!row) throw new Error(`no workspace with id ${emailOrId}`);
  return row;
}

/**
 * Sets a workspace's plan. `none` cancels a team's plan (a team is deleted only without one, and
 * is held to Free's limits meanwhile); a personal workspace always has one.
 */
export async function setPlan(sql: Sql, emailOrId: string, plan: string) {
  if (plan !== 'none' && !PlanName.includes(plan as PlanName))
    throw new Error(`unknown plan ${plan}; plans: ${PlanName.join(', ')}, or none for a team`);
  const ws = await workspaceNamed(sql, emailOrId);
  if (plan === 'none' && ws.kind === 'personal') throw new Error('a personal workspace always has a plan (free is the least)');
  const stored = plan === 'none' ? null : plan;
  await sql.begin(async (tx) => {
    await setWorkspacePlan(tx, ws.id, stored);
    await refitProjects(tx, ws.id, planOf(stored ?? 'free').projects);
  });
  return ws.id;
}

export async function setSuspended(sql: Sql, email: string, suspended: boolean) {
  const ws = await personalWorkspace(sql, email);
  await setWorkspaceSuspended(sql, ws, suspended);
  // Restoring a workspace also refits its projects to its plan.
  if (!suspended) await refitProjects(sql, ws, (await planFor(sql, ws)).projects);
  return ws;
}
