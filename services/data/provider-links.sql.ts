import type { Db, Sql } from '../core/infra/db.js';
import { hashSecret } from '../core/infra/ids.js';

export type ProviderName = 'github' | 'google';

export interface ProviderLinkRow {
  personId: string;
  provider: ProviderName;
  subject: string;
  imageUrl: string | null;
}

/** Keeps one authorization request for `seconds`: its state (hashed), PKCE verifier, nonce, and who links. */
export async function keepOAuthState(
  sql: Sql,
  s: {
    state: string;
    provider: ProviderName;
    codeVerifier: string;
    nonce: string | null;
    personId: string | null;
    seconds: number;
    nextPath: string | null;
  },
) {
  await sql`
    insert into oauth_states (state_hash, provider, code_verifier, nonce, person_id, next_path, expires_at)
    values (${hashSecret(s.state)}, ${s.provider}, ${s.codeVerifier}, ${s.nonce}, ${s.personId}, ${s.nextPath}, now() + make_interval(secs => ${s.seconds}))`;
}

/** Spends a state: once, for its provider, unexpired; null otherwise. */
export async function spendOAuthState(sql: Sql, state: string, provider: ProviderName) {
  const [row] = await sql<
    { codeVerifier: string; nonce: string | null; personId: string | null; nextPath: string | null; expiresAt: Date; provider: string }[]
  >`
    delete from oauth_states where state_hash = ${hashSecret(state)} returning code_verifier, nonce, person_id, next_path, expires_at, provider`;
  return row && row.provider === provider && row.expiresAt > new Date() ? row : null;
}

export async function providerLink(sql: Sql, provider: ProviderName, subject: string): Promise<ProviderLinkRow | null> {
  const [row] = await sql<ProviderLinkRow[]>`
    select person_id, provider, subject, image_url from provider_links where provider = ${provider} and subject = ${subject}`;
  return row ?? null;
}

export async function providerLinksOf(sql: Sql, personId: string): Promise<ProviderLinkRow[]> {
  return sql<ProviderLinkRow[]>`
    select person_id, provider, subject, image_url from provider_links where person_id = ${personId} order by provider`;
}

/**
 * Links (or refreshes the avatar of) a provider account: `added` when the link is new, `refreshed`
 * when it was there already, false when the person has another account of that provider.
 */
export async function linkProvider(sql: Sql, l: ProviderLinkRow): Promise<'added' | 'refreshed' | false> {
  try {
    // xmax is 0 on a row the insert made, and set on one the conflict updated.
    const rows = await sql<{ added: boolean }[]>`
      insert into provider_links (person_id, provider, subject, image_url) values (${l.personId}, ${l.provider}, ${l.subject}, ${l.imageUrl})
      on conflict (provider, subject) do update set image_url = excluded.image_url where provider_links.person_id = excluded.person_id
      returning (xmax = 0) as added`;
    if (rows.length !== 1) return false;
    return rows[0].added ? 'added' : 'refreshed';
  } catch (err) {
    // unique (person_id, provider): the person has another account of this provider.
    if ((err as { code?: string }).code === '23505') return false;
    throw err;
  }
}

/** Unlinks the person's provider accounts linked in the last `days` days; answers how many. */
export async function unlinkRecentProviders(sql: Db, personId: string, days: number): Promise<number> {
  const rows = await sql`
    delete from provider_links where person_id = ${personId} and created_at > now() - make_interval(days => ${days}) returning subject`;
  return rows.length;
}

/** Provider states never spent: the callback deletes the ones it spends, the hourly sweep the rest. */
export async function deleteExpiredOAuthStates(sql: Sql): Promise<number> {
  return (await sql`delete from oauth_states where expires_at < now()`).count;
}

export async function unlinkProvider(sql: Sql, personId: string, provider: ProviderName): Promise<boolean> {
  const rows = await sql`delete from provider_links where person_id = ${personId} and provider = ${provider} returning subject`;
  return rows.length === 1;
}

export async function personIdByEmail(sql: Sql, email: string): Promise<string | null> {
  const [row] = await sql<{ id: string }[]>`select id from people where email = ${email.trim().toLowerCase()}`;
  return row?.id ?? null;
}
