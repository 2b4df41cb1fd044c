import type { Db, Sql } from '../core/db.js';
import { PlanName, planOf } from '../core/plans.js';
import { createSession, type SessionKind } from '../data/sessions.sql.js';
import { ensurePerson } from '../data/people.sql.js';
import { isUuid } from '../core/ids.js';

// Operator actions. Each takes its dependencies so that tests call the same code the command runs.

export async function issueToken(sql: Sql, email: string, opts: { name?: string; kind?: SessionKind; readOnly?: boolean; days?: number }) {
  const person = await ensurePerson(sql, email, { name: opts.name, verified: true });
  if (opts.name && person.name !== opts.name) await sql`update people set name = ${opts.name} where id = ${person.id}`;
  return createSession(sql, {
    personId: person.id, kind: opts.kind ?? 'cli', readOnly: opts.readOnly, days: opts.days ?? 30, method: 'operator',
  });
}

async function personalWorkspace(sql: Sql, email: string): Promise<string> {
  const [row] = await sql<{ workspaceId: string }[]>`
    select pw.workspace_id from personal_workspaces pw join people p on p.id = pw.person_id where p.email = ${email.trim().toLowerCase()}`;
  if (!row) throw new Error(`no person with email ${email}`);
  return row.workspaceId;
}

/** A workspace named by its id (a team's, or anyone's), or by its owner's email (their own). */
async function workspaceNamed(sql: Sql, emailOrId: string): Promise<{ id: string; kind: 'personal' | 'team' }> {
  if (emailOrId.includes('@')) return { id: await personalWorkspace(sql, emailOrId), kind: 'personal' };
  const [row] = isUuid(emailOrId)
    ? await sql<{ id: string; kind: 'personal' | 'team' }[]>`select id, kind from workspaces where id = ${emailOrId} and deleted_at is null`
    : [];
  if (!row) throw new Error(`no workspace with id ${emailOrId}`);
  return row;
}

/**
 * Sets a workspace's plan. `none` cancels a team's plan (a team is deleted only without one, and
 * is held to Free's limits meanwhile); a personal workspace always has one.
 */
export async function setPlan(sql: Sql, emailOrId: string, plan: string) {
  if (plan !== 'none' && !PlanName.includes(plan as PlanName)) throw new Error(`unknown plan ${plan}; plans: ${PlanName.join(', ')}, or none for a team`);
  const ws = await workspaceNamed(sql, emailOrId);
  if (plan === 'none' && ws.kind === 'personal') throw new Error('a personal workspace always has a plan (free is the least)');
  const stored = plan === 'none' ? null : plan;
  await sql.begin(async (tx) => {
    await tx`update workspaces set plan = ${stored} where id = ${ws.id}`;
    await refitProjects(tx, ws.id, planOf(stored ?? 'free').projects);
  });
  return ws.id;
}

/**
 * Spec 7: projects are refitted to the plan only when it changes (or the operator restores the
 * workspace). The oldest projects up to the plan's number stay open; the rest are over the limit.
 */
export async function refitProjects(sql: Db, workspaceId: string, allowed: number) {
  await sql`
    update projects p set over_limit_at = case when r.n > ${allowed} then coalesce(p.over_limit_at, now()) else null end
    from (select id, row_number() over (order by created_at, id) as n from projects
          where workspace_id = ${workspaceId} and deleted_at is null) r
    where p.id = r.id`;
}

export async function setSuspended(sql: Sql, email: string, suspended: boolean) {
  const ws = await personalWorkspace(sql, email);
  await sql`update workspaces set suspended_at = ${suspended ? sql`now()` : null} where id = ${ws}`;
  // Restoring a workspace also refits its projects to its plan.
  if (!suspended) {
    const [w] = await sql<{ plan: string | null }[]>`select plan from workspaces where id = ${ws}`;
    await refitProjects(sql, ws, planOf(w.plan ?? 'free').projects);
  }
  return ws;
}
