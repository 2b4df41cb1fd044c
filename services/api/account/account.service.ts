import type { Sql } from '../../core/db.js';
import { signInFirst } from '../../core/errors.js';
import type { SessionAuth } from '../../data/sessions.sql.js';
import { displayNameOf, type PersonRow } from '../../data/people.sql.js';

export async function accountOf(sql: Sql, auth: SessionAuth) {
  const [row] = await sql<(PersonRow & { wsName: string; wsKind: 'personal' | 'team' })[]>`
    select p.*, w.name as ws_name, w.kind as ws_kind
    from people p, workspaces w
    where p.id = ${auth.personId} and w.id = ${auth.workspaceId}`;
  if (!row) throw signInFirst();
  return {
    userId: row.id,
    name: row.name,
    displayName: displayNameOf(row),
    nameChosen: row.name !== '',
    ...(row.name ? {} : { suggestedName: displayNameOf(row) }),
    email: row.email,
    emailVerified: row.emailVerified,
    image: null,
    photo: null,
    providerImage: false,
    handle: row.handle,
    workspace: { id: auth.workspaceId, name: row.wsName, kind: row.wsKind, role: auth.role },
    createdAt: row.createdAt.toISOString(),
  };
}
