import type { Db, Sql } from '../core/infra/db.js';

export interface PasskeyRow {
  id: string;
  personId: string;
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: string[];
  deviceType: string | null;
  backedUp: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
  name: string | null;
}

// The counter is a bigint in Postgres; read as a number (authenticators count in 32 bits).
const columns = (sql: Sql) =>
  sql`id, person_id, credential_id, public_key, counter::float8 as counter, transports, device_type, backed_up, created_at, last_used_at, name`;

export type ChallengePurpose = 'register' | 'sign-in';

/** Keeps a challenge for one ceremony, `seconds` long; a registration's belongs to its person. */
export async function keepChallenge(sql: Sql, challenge: string, purpose: ChallengePurpose, personId: string | null, seconds: number) {
  await sql`
    insert into webauthn_challenges (challenge, purpose, person_id, expires_at)
    values (${challenge}, ${purpose}, ${personId}, now() + make_interval(secs => ${seconds}))`;
}

/**
 * Spends a challenge: true once, for an unexpired one of this purpose (and person). The row goes
 * whatever the verification then decides, so an answer can never be replayed.
 */
export async function spendChallenge(sql: Sql, challenge: string, purpose: ChallengePurpose, personId: string | null): Promise<boolean> {
  const rows = await sql<{ expiresAt: Date; personId: string | null }[]>`
    delete from webauthn_challenges where challenge = ${challenge} and purpose = ${purpose}
    returning expires_at, person_id`;
  const [row] = rows;
  return !!row && row.expiresAt > new Date() && row.personId === personId;
}

export async function passkeysOf(sql: Sql, personId: string): Promise<PasskeyRow[]> {
  return sql<PasskeyRow[]>`select ${columns(sql)} from passkeys where person_id = ${personId} order by created_at, id`;
}

export async function passkeyByCredential(sql: Sql, credentialId: string): Promise<PasskeyRow | null> {
  const [row] = await sql<PasskeyRow[]>`select ${columns(sql)} from passkeys where credential_id = ${credentialId}`;
  return row ?? null;
}

/** False when the authenticator already holds a passkey here (a credential id is registered once). */
export async function addPasskey(
  sql: Sql,
  p: {
    personId: string;
    credentialId: string;
    publicKey: Uint8Array;
    counter: number;
    transports: string[];
    deviceType: string;
    backedUp: boolean;
    name: string | null;
  },
): Promise<boolean> {
  const rows = await sql`
    insert into passkeys (person_id, credential_id, public_key, counter, transports, device_type, backed_up, name)
    values (${p.personId}, ${p.credentialId}, ${Buffer.from(p.publicKey)}, ${p.counter}, ${p.transports}, ${p.deviceType}, ${p.backedUp}, ${p.name})
    on conflict (credential_id) do nothing returning id`;
  return rows.length === 1;
}

/** Records a sign-in with the passkey: the new signature counter and when. */
export async function passkeyUsed(sql: Sql, id: string, counter: number, backedUp: boolean) {
  await sql`update passkeys set counter = ${counter}, backed_up = ${backedUp}, last_used_at = now() where id = ${id}`;
}

/** False when the passkey is not the person's (or is unknown). */
export async function renamePasskeyOf(sql: Sql, personId: string, passkeyId: string, name: string): Promise<boolean> {
  const rows = await sql`update passkeys set name = ${name} where id = ${passkeyId} and person_id = ${personId} returning id`;
  return rows.length === 1;
}

export async function removePasskeyOf(sql: Sql, personId: string, passkeyId: string): Promise<boolean> {
  const rows = await sql`delete from passkeys where id = ${passkeyId} and person_id = ${personId} returning id`;
  return rows.length === 1;
}

export async function passkeyCount(sql: Sql, personId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from passkeys where person_id = ${personId}`;
  return row.n;
}

/** Removes the person's passkeys registered in the last `days` days; answers how many. */
export async function removeRecentPasskeys(sql: Db, personId: string, days: number): Promise<number> {
  const rows = await sql`
    delete from passkeys where person_id = ${personId} and created_at > now() - make_interval(days => ${days}) returning id`;
  return rows.length;
}

/** Passkey challenges never answered and expired (an answered one is deleted at once); the number removed. */
export async function deleteExpiredChallenges(sql: Sql): Promise<number> {
  const gone = await sql`delete from webauthn_challenges where expires_at < now()`;
  return gone.count;
}
