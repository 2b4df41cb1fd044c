import type { Sql } from '../../services/core/db.js';
import { deleteExpiredOAuthStates } from '../../services/data/provider-links.sql.js';

// One-use secrets that can no longer be used: they are kept a day after they expire or are spent,
// so "this link was already used" can still be told apart from "no such link" for a while.

/** Sign-in links, device codes, preview passes, passkey challenges, provider states and long-ended sessions; returns rows removed. */
export async function sweepExpiredSecrets(sql: Sql) {
  const signInLinks = await sql`
    delete from email_sign_ins where expires_at < now() - interval '1 day' or used_at < now() - interval '1 day'`;
  const deviceCodes = await sql`delete from device_logins where expires_at < now() - interval '1 day'`;
  const previewPasses = await sql`
    delete from preview_passes where expires_at < now() - interval '1 day' or spent_at < now() - interval '1 day'`;
  // Sessions stay 30 days after they end, so the sessions list can still show recent ones.
  const sessions = await sql`delete from sessions where coalesce(ended_at, expires_at) < now() - interval '30 days'`;
  // Passkey challenges never answered (an answered one is deleted at once).
  const passkeyChallenges = await sql`delete from webauthn_challenges where expires_at < now()`;
  // Provider states a browser started and never brought back (a spent one is deleted at once).
  const oauthStates = await deleteExpiredOAuthStates(sql);
  return {
    signInLinks: signInLinks.count, deviceCodes: deviceCodes.count, previewPasses: previewPasses.count, sessions: sessions.count,
    passkeyChallenges: passkeyChallenges.count, oauthStates,
  };
}
