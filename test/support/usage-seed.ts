import { randomUUID } from 'node:crypto';
import type { Db } from '../../services/core/infra/db.js';

// Copies and visits written as the runner and the room write them, for the usage and statement
// tests (issue 46): a copy record with its lifecycle events, a project, a visit.

/** A copy event: its kind and when. */
export type CopyEvent = [kind: string, at: Date];

/** A copy record and its events (seq 1, 2, …); ended when its last event is a stop or fail. */
export async function seedCopy(sql: Db, workspaceId: string, projectId: string, events: CopyEvent[]): Promise<string> {
  const id = randomUUID();
  const ended = ['stop', 'fail'].includes(events.at(-1)![0]);
  await sql`
    insert into runner_copies (id, runner_id, workspace_id, project_id, build_id, origin, state, asked_at, ended_at, seq)
    values (${id}, 'statement-test', ${workspaceId}, ${projectId}, ${randomUUID()}, 'viewer', ${ended ? 'ended' : 'running'},
            ${events[0][1]}, ${ended ? events.at(-1)![1] : null}, ${events.length})`;
  for (const [i, [kind, at]] of events.entries()) {
    await sql`
      insert into copy_events (copy_id, seq, workspace_id, project_id, build_id, kind, at)
      values (${id}, ${i + 1}, ${workspaceId}, ${projectId}, ${randomUUID()}, ${kind}, ${at})`;
  }
  return id;
}

/** A project of the workspace, named as given. */
export async function seedProject(sql: Db, workspaceId: string, name: string): Promise<string> {
  const [p] = await sql<{ id: string }[]>`
    insert into projects (workspace_id, slug, name) values (${workspaceId}, ${`s-${randomUUID().slice(0, 12)}`}, ${name}) returning id`;
  return p.id;
}

/** A finished visit of the project's room (not a preview). */
export async function seedVisit(sql: Db, workspaceId: string, projectId: string, from: Date, to: Date) {
  await sql`
    insert into visits (workspace_id, project_id, started_at, last_seen_at, ended_at)
    values (${workspaceId}, ${projectId}, ${from}, ${to}, ${to})`;
}

/** The personal workspace of the person with this email. */
export async function workspaceOf(sql: Db, email: string): Promise<string> {
  const [row] = await sql<{ workspaceId: string }[]>`
    select pw.workspace_id from personal_workspaces pw join people p on p.id = pw.person_id where p.email = ${email}`;
  return row.workspaceId;
}

/** A UTC month in the past that no other test uses: its start, end and name. */
export function pastMonth(yearsBack: number, month: number) {
  const year = new Date().getUTCFullYear() - yearsBack;
  const start = new Date(Date.UTC(year, month - 1, 1));
  const end = new Date(Date.UTC(year, month, 1));
  return { start, end, name: start.toISOString().slice(0, 7), at: (ms: number) => new Date(start.getTime() + ms) };
}
