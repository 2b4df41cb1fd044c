import type { Db, Sql } from '../core/db.js';
import { PlanName, planOf } from '../core/plans.js';
import { createSession, type SessionKind } from '../data/sessions.sql.js';
import { ensurePerson } from '../data/people.sql.js';

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

export async function setPlan(sql: Sql, email: string, plan: string) {
  const parsed = PlanName.includes(plan as PlanName);
  if (!parsed) throw new Error(`unknown plan ${plan}; plans: ${PlanName.join(', ')}`);
  const ws = await personalWorkspace(sql, email);
  await sql.begin(async (tx) => {
    await tx`update workspaces set plan = ${plan} where id = ${ws}`;
    await refitProjects(tx, ws, planOf(plan).projects);
  });
  return ws;
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
