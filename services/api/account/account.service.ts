import type { Config } from '../../core/config.js';
import type { Sql } from '../../core/db.js';
import { signInFirst } from '../../core/errors.js';
import type { SessionAuth } from '../../data/sessions.sql.js';
import { displayNameOf, type PersonRow } from '../../data/people.sql.js';
import { pictureOf } from '../workspaces/workspace-views.js';

export async function accountOf(sql: Sql, config: Config, auth: SessionAuth) {
  const [row] = await sql<(PersonRow & { photoHash: string | null; wsName: string; wsKind: 'personal' | 'team' })[]>`
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
    // The picture rule of 2.10: the uploaded photo, else the provider's avatar (none yet), else none.
    image: pictureOf(config, { personId: row.id, photoHash: row.photoHash }),
    photo: row.photoHash ? { url: pictureOf(config, { personId: row.id, photoHash: row.photoHash }), hash: row.photoHash } : null,
    providerImage: false,
    handle: row.handle,
    workspace: { id: auth.workspaceId, name: row.wsName, kind: row.wsKind, role: auth.role },
    createdAt: row.createdAt.toISOString(),
  };
}
