import { isIP } from 'node:net';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Config } from '../../core/infra/config.js';
import type { Sql } from '../../core/infra/db.js';
import { notFound, refused } from '../../core/rules/errors.js';
import { isUuid } from '../../core/infra/ids.js';
import {
  addPasskey,
  keepChallenge,
  passkeyByCredential,
  passkeysOf,
  passkeyUsed,
  removePasskeyOf,
  renamePasskeyOf,
  spendChallenge,
  type ChallengePurpose,
} from '../../data/passkeys.sql.js';
import { createSession } from '../../data/sessions.sql.js';

// Passkeys (spec 5 (8); issue 19): WebAuthn through @simplewebauthn/server. Discoverable
// credentials (resident keys) so sign-in needs no name typed first; user verification (a PIN or
// biometric) required, as a passkey is a whole sign-in by itself: a found security key without
// its PIN must not be one (security-3 L4); the RP id and origin from config; each challenge kept in Postgres for one
// ceremony of at most five minutes and spent by the first answer that names it.

const challengeSeconds = 300;
const rpName = 'Demo rooms';

/** The relying party: WEBAUTHN_RP_ID and WEBAUTHN_ORIGIN, else PUBLIC_URL's host name and origin. */
export function relyingParty(config: Config) {
  const url = new URL(config.publicUrl);
  return { rpID: config.WEBAUTHN_RP_ID ?? url.hostname, origin: config.WEBAUTHN_ORIGIN ?? url.origin };
}

/**
 * The origin whose pages can use a passkey here, or null when none can: WebAuthn takes no IP
 * address as RP id, and a page must be a secure context on the RP id (or under it) whose origin the
 * answer is checked against (issue 29: the sign-in page offered passkeys at http://10.0.0.5).
 */
export function passkeyOrigin(config: Config): string | null {
  const { rpID, origin } = relyingParty(config);
  if (isIP(rpID.replace(/^\[|\]$/g, '')) !== 0) return null;
  const host = new URL(origin).hostname;
  const secure = origin.startsWith('https:') || host === 'localhost' || host.endsWith('.localhost');
  return secure && (host === rpID || host.endsWith(`.${rpID}`)) ? origin : null;
}

const refusedPasskey = (detail: string) => refused(422, 'passkey', detail);

/** The challenge an answer carries (its clientDataJSON), or null when it carries none readable. */
function challengeIn(response: { response?: { clientDataJSON?: unknown } }): string | null {
  try {
    const json = JSON.parse(Buffer.from(String(response.response?.clientDataJSON), 'base64url').toString('utf8'));
    return typeof json.challenge === 'string' ? json.challenge : null;
  } catch {
    return null;
  }
}

/** Spends the answer's challenge before anything is verified: a second try with it finds none. */
async function spend(sql: Sql, response: object, purpose: ChallengePurpose, personId: string | null): Promise<string> {
  const challenge = challengeIn(response as never);
  if (!challenge || !(await spendChallenge(sql, challenge, purpose, personId))) {
    throw refusedPasskey('the challenge is unknown, used or expired: start again');
  }
  return challenge;
}

export const passkeyView = (p: {
  id: string;
  name: string | null;
  deviceType: string | null;
  backedUp: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
}) => ({
  id: p.id,
  name: p.name,
  /** `multiDevice` (synced) or `singleDevice` (bound to one authenticator). */
  kind: p.deviceType,
  backedUp: p.backedUp,
  createdAt: p.createdAt.toISOString(),
  lastUsedAt: p.lastUsedAt?.toISOString() ?? null,
});

export async function listPasskeys(sql: Sql, personId: string) {
  return (await passkeysOf(sql, personId)).map(passkeyView);
}

export async function registrationOptions(sql: Sql, config: Config, person: { id: string; email: string; displayName: string }) {
  const { rpID } = relyingParty(config);
  const existing = await passkeysOf(sql, person.id);
  const options = await generateRegistrationOptions({
    rpName,
    rpID,
    userName: person.email,
    userDisplayName: person.displayName,
    userID: new TextEncoder().encode(person.id),
    timeout: challengeSeconds * 1000,
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports as never })),
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
  });
  await keepChallenge(sql, options.challenge, 'register', person.id, challengeSeconds);
  return { ...options };
}

export async function registerPasskey(
  sql: Sql,
  config: Config,
  personId: string,
  response: RegistrationResponseJSON,
  name: string | null = null,
) {
  const challenge = await spend(sql, response, 'register', personId);
  const { rpID, origin } = relyingParty(config);
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: true,
    });
  } catch (err) {
    throw refusedPasskey((err as Error).message);
  }
  if (!verified.verified || !verified.registrationInfo) throw refusedPasskey('the authenticator did not prove the passkey');
  const info = verified.registrationInfo;
  const added = await addPasskey(sql, {
    personId,
    credentialId: info.credential.id,
    publicKey: info.credential.publicKey,
    counter: info.credential.counter,
    transports: info.credential.transports ?? [],
    deviceType: info.credentialDeviceType,
    backedUp: info.credentialBackedUp,
    name,
  });
  if (!added) throw refusedPasskey('this passkey is registered already');
  return listPasskeys(sql, personId);
}

export async function renamePasskey(sql: Sql, personId: string, passkeyId: string, name: string) {
  if (!isUuid(passkeyId) || !(await renamePasskeyOf(sql, personId, passkeyId, name))) throw notFound();
  return listPasskeys(sql, personId);
}

export async function removePasskey(sql: Sql, personId: string, passkeyId: string) {
  if (!isUuid(passkeyId) || !(await removePasskeyOf(sql, personId, passkeyId))) throw notFound();
  return listPasskeys(sql, personId);
}

/** Sign-in options: no credentials listed, so the authenticator offers its discoverable ones. */
export async function signInOptions(sql: Sql, config: Config) {
  const { rpID } = relyingParty(config);
  const options = await generateAuthenticationOptions({ rpID, userVerification: 'required', timeout: challengeSeconds * 1000 });
  await keepChallenge(sql, options.challenge, 'sign-in', null, challengeSeconds);
  return { ...options };
}

/** Verifies a sign-in answer and opens a web session for the passkey's person. */
export async function signInWithPasskey(sql: Sql, config: Config, response: AuthenticationResponseJSON, userAgent?: string) {
  const challenge = await spend(sql, response, 'sign-in', null);
  const passkey = typeof response.id === 'string' ? await passkeyByCredential(sql, response.id) : null;
  if (!passkey) throw refusedPasskey('no account has this passkey');
  const { rpID, origin } = relyingParty(config);
  let verified;
  try {
    verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: true,
      credential: {
        id: passkey.credentialId,
        publicKey: new Uint8Array(passkey.publicKey),
        counter: passkey.counter,
        transports: passkey.transports as never,
      },
    });
  } catch (err) {
    throw refusedPasskey((err as Error).message);
  }
  if (!verified.verified) throw refusedPasskey('the authenticator did not prove the passkey');
  await passkeyUsed(sql, passkey.id, verified.authenticationInfo.newCounter, verified.authenticationInfo.credentialBackedUp);
  return createSession(sql, { personId: passkey.personId, kind: 'web', days: config.SESSION_DAYS, method: 'passkey', userAgent });
}
