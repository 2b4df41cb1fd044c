import type { Config } from '../../core/infra/config.js';
import type { Sql } from '../../core/infra/db.js';
import { signInFirst } from '../../core/rules/errors.js';
import type { SessionAuth } from '../../data/sessions.sql.js';
import { displayNameOf, personInWorkspace } from '../../data/people.sql.js';
import { pictureOf } from '../workspaces/workspace-views.js';
import { providerLinksOf } from '../../data/provider-links.sql.js';

export async function accountOf(sql: Sql, config: Config, auth: SessionAuth) {
  const row = await personInWorkspace(sql, auth.personId, auth.workspaceId);
  if (!row) throw signInFirst();
  const photo = row.photoHash ? pictureOf(config, { personId: row.id, photoHash: row.photoHash }) : null;
  // The picture rule of 2.10: the uploaded photo, else a linked provider's avatar, else none.
  const avatar = photo ? null : ((await providerLinksOf(sql, row.id)).find((l) => l.imageUrl)?.imageUrl ?? null);
  return {
    userId: row.id,
    name: row.name,
    displayName: displayNameOf(row),
    nameChosen: row.name !== '',
    ...(row.name ? {} : { suggestedName: displayNameOf(row) }),
    email: row.email,
    emailVerified: row.emailVerified,
    image: photo ?? avatar,
    photo: photo ? { url: photo, hash: row.photoHash } : null,
    providerImage: !photo && avatar !== null,
    handle: row.handle,
    workspace: { id: auth.workspaceId, name: row.wsName, kind: row.wsKind, role: auth.role },
    createdAt: row.createdAt.toISOString(),
  };
}
