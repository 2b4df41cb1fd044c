import type { Db } from '../core/infra/db.js';
import type { CoarseDevice } from './room-events.sql.js';

// Who said they were behind a link (migrations/00011): a row per session of the link, with the
// name and email it gave and the browser it came from. The pipeline reads them for `claims` and
// `forwarded`.

export interface ClaimRow {
  linkId: string;
  sessionId: string;
  name: string | null;
  email: string | null;
  browserHash: Buffer | null;
  device: CoarseDevice | null;
  firstSeenAt: Date;
  lastSeenAt: Date;
}

/** Records (or refreshes) the session's claim on its link: its name and email as they stand now. */
export async function claimLink(
  sql: Db,
  claim: {
    linkId: string;
    sessionId: string;
    name: string | null;
    email: string | null;
    browserHash: Buffer | null;
    device: CoarseDevice | null;
  },
) {
  await sql`
    insert into link_claims (link_id, session_id, name, email, browser_hash, device)
    values (${claim.linkId}, ${claim.sessionId}, ${claim.name}, ${claim.email}, ${claim.browserHash}, ${claim.device})
    on conflict (link_id, session_id) do update set
      name = coalesce(excluded.name, link_claims.name),
      email = coalesce(excluded.email, link_claims.email),
      browser_hash = coalesce(link_claims.browser_hash, excluded.browser_hash),
      device = coalesce(link_claims.device, excluded.device),
      last_seen_at = now()`;
}

/** The link's claims, first seen first. */
export function claimsOf(sql: Db, linkId: string) {
  return sql<ClaimRow[]>`select * from link_claims where link_id = ${linkId} order by first_seen_at, session_id`;
}
