import type { Sql } from '../../services/core/infra/db.js';
import { deleteExpiredDeviceLogins } from '../../services/data/device-logins.sql.js';
import { deleteSpentSignIns } from '../../services/data/email-sign-ins.sql.js';
import { deleteExpiredChallenges } from '../../services/data/passkeys.sql.js';
import { deleteSpentPreviewPasses } from '../../services/data/preview-passes.sql.js';
import { deleteExpiredOAuthStates } from '../../services/data/provider-links.sql.js';
import { deleteLongEndedSessions } from '../../services/data/sessions.sql.js';

// One-use secrets that can no longer be used: they are kept a day after they expire or are spent,
// so "this link was already used" can still be told apart from "no such link" for a while.

/** Sign-in links, device codes, preview passes, passkey challenges, provider states and long-ended sessions; returns rows removed. */
export async function sweepExpiredSecrets(sql: Sql) {
  const signInLinks = await deleteSpentSignIns(sql);
  const deviceCodes = await deleteExpiredDeviceLogins(sql);
  const previewPasses = await deleteSpentPreviewPasses(sql);
  // Sessions stay 30 days after they end, so the sessions list can still show recent ones.
  const sessions = await deleteLongEndedSessions(sql);
  // Passkey challenges never answered (an answered one is deleted at once).
  const passkeyChallenges = await deleteExpiredChallenges(sql);
  // Provider states a browser started and never brought back (a spent one is deleted at once).
  const oauthStates = await deleteExpiredOAuthStates(sql);
  return { signInLinks, deviceCodes, previewPasses, sessions, passkeyChallenges, oauthStates };
}
