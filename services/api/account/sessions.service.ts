import type { Sql } from '../../core/infra/db.js';
import { notFound } from '../../core/rules/errors.js';
import { isUuid } from '../../core/infra/ids.js';
import { cancelApprovedDeviceLogins, endEverySession, endOwnSession, liveSessionsOf, type SessionKind } from '../../data/sessions.sql.js';
import { removeRecentPasskeys } from '../../data/passkeys.sql.js';
import { unlinkRecentProviders } from '../../data/provider-links.sql.js';
import type { Auth } from '../routing/request-auth.js';

// Own sessions (spec 2.10 Session, 4.6): the cookie sessions of the app and the bearer tokens of
// the command-line tool alike, each with its sign-in method, user agent, a coarse device and its
// expiry. A session is shown by its id only; the token is never stored in the clear, so never shown.

const browsers: [RegExp, string][] = [
  [/Edg\//, 'Edge'],
  [/OPR\/|Opera/, 'Opera'],
  [/Firefox\//, 'Firefox'],
  [/Chrom(e|ium)\//, 'Chrome'],
  [/Safari\//, 'Safari'],
];
const systems: [RegExp, string][] = [
  [/iPhone/, 'iPhone'],
  [/iPad/, 'iPad'],
  [/Android/, 'Android'],
  [/CrOS/, 'ChromeOS'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/Windows/, 'Windows'],
  [/Linux/, 'Linux'],
];

/** Words for the device a session came from, read coarsely from its user agent (never a fingerprint). */
export function deviceOf(userAgent: string | null, kind: SessionKind): string {
  const ua = userAgent ?? '';
  if (/^pitch\//i.test(ua) || (kind === 'cli' && !/Mozilla/.test(ua))) return 'Command-line tool';
  if (kind === 'connector') return 'AI-assistant connector';
  const browser = browsers.find(([re]) => re.test(ua))?.[1];
  const system = systems.find(([re]) => re.test(ua))?.[1];
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? system ?? 'Unknown device';
}

export async function sessionsOf(sql: Sql, auth: Auth) {
  const rows = await liveSessionsOf(sql, auth.personId);
  return rows.map((s) => ({
    id: s.id,
    current: s.id === auth.sessionId,
    signInMethod: s.signInMethod,
    userAgent: s.userAgent,
    device: deviceOf(s.userAgent, s.kind),
    createdAt: s.createdAt.toISOString(),
    expiresAt: s.expiresAt.toISOString(),
    kind: s.kind,
    readOnly: s.readOnly,
    connectorName: connectorNameOf(s),
    lastUsedAt: s.lastUsedAt?.toISOString() ?? null,
  }));
}

/** createConnectorToken keeps the token's name as its user agent, `connector: <name>`. */
function connectorNameOf(s: { kind: SessionKind; userAgent: string | null }): string | null {
  const prefix = 'connector: ';
  return s.kind === 'connector' && s.userAgent?.startsWith(prefix) ? s.userAgent.slice(prefix.length) : null;
}

/** Another person's session, an ended one and an unknown id are all the same 404. */
export async function revokeSession(sql: Sql, auth: Auth, sessionId: string) {
  if (!isUuid(sessionId) || !(await endOwnSession(sql, auth.personId, sessionId))) throw notFound();
  return sessionsOf(sql, auth);
}

/**
 * Ends every session and cancels device logins approved but not collected. With `removeDays`, the
 * passkeys and provider links added in that many last days go too: what a stolen session may have
 * added to come back by (security-3 M4). Emailed links stay: they reach only the person's mailbox.
 */
export async function signOutEverywhere(sql: Sql, auth: Auth, removeDays?: number) {
  return sql.begin(async (tx) => {
    const signedOut = await endEverySession(tx, auth.personId);
    await cancelApprovedDeviceLogins(tx, auth.personId);
    if (removeDays === undefined) return { signedOut };
    const methodsRemoved =
      (await removeRecentPasskeys(tx, auth.personId, removeDays)) + (await unlinkRecentProviders(tx, auth.personId, removeDays));
    return { signedOut, methodsRemoved };
  });
}
