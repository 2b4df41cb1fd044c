import type { Db } from '../core/infra/db.js';

// The community's limits (spec 8), counted in Postgres so they hold across api processes and
// restarts: card edits of a listed card, listings and appeals per workspace, reports per person.

export type CommunityAction = 'edit' | 'list' | 'appeal' | 'report';
type Counted = { kind: CommunityAction; workspaceId?: string | null; projectId?: string | null; personId?: string | null };

/**
 * How many `kind` the subject did within `hours`, and the seconds until the oldest of them leaves
 * the window. Call inside a transaction that holds `lockFor`'s lock, so that counting and
 * recording are one step.
 */
export async function countActions(tx: Db, by: 'workspace' | 'project' | 'person', c: Counted, hours: number) {
  const column = tx(by === 'workspace' ? 'workspace_id' : by === 'project' ? 'project_id' : 'person_id');
  const subject = by === 'workspace' ? c.workspaceId : by === 'project' ? c.projectId : c.personId;
  const [row] = await tx<{ n: number; retryAfter: number }[]>`
    select count(*)::int as n,
           coalesce(ceil(extract(epoch from min(at) + make_interval(hours => ${hours}) - now())), 0)::int as retry_after
    from community_actions where ${column} = ${subject} and kind = ${c.kind} and at > now() - make_interval(hours => ${hours})`;
  return row;
}

export async function recordAction(tx: Db, c: Counted) {
  await tx`insert into community_actions (kind, workspace_id, project_id, person_id) values (${c.kind}, ${c.workspaceId ?? null}, ${c.projectId ?? null}, ${c.personId ?? null})`;
}

/** One counter at a time per subject, for the rest of the transaction. */
export async function lockFor(tx: Db, key: string) {
  await tx`select pg_advisory_xact_lock(hashtextextended(${'community:' + key}, 0))`;
}
