import type { Sql } from '../core/infra/db.js';
import { hashSecret, newSecret } from '../core/infra/ids.js';

// Grants carry a viewer session from the room shell to a content origin: one use, a minute,
// good for one origin only.

const grantSeconds = 60;

export async function mintGrant(sql: Sql, sessionId: string, originLabel: string): Promise<string> {
  const grant = newSecret('pp_grant', 24);
  await sql`
    insert into content_grants (grant_hash, session_id, origin_label, expires_at)
    values (${hashSecret(grant)}, ${sessionId}, ${originLabel}, now() + make_interval(secs => ${grantSeconds}))`;
  return grant;
}

/** Spends the grant for this origin; its session id, or null when unknown, spent, stale or for elsewhere. */
export async function spendGrant(sql: Sql, grant: string, originLabel: string): Promise<string | null> {
  if (!grant || grant.length > 200) return null;
  const [row] = await sql<{ sessionId: string }[]>`
    update content_grants set spent_at = now()
    where grant_hash = ${hashSecret(grant)} and origin_label = ${originLabel} and spent_at is null and expires_at > now()
    returning session_id`;
  return row?.sessionId ?? null;
}
