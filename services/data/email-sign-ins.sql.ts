import type { Sql } from '../core/infra/db.js';

// Emailed sign-in links: each kept as the hash of its token, with the hash of the nonce of the
// browser that asked for it (null for links made before the nonce existed).

export async function keepEmailSignIn(sql: Sql, l: { email: string; tokenHash: Buffer; browserHash: Buffer | null; minutes: number }) {
  const [row] = await sql<{ expiresAt: Date }[]>`
    insert into email_sign_ins (email, token_hash, browser_hash, expires_at)
    values (${l.email}, ${l.tokenHash}, ${l.browserHash}, now() + make_interval(mins => ${l.minutes}))
    returning expires_at`;
  return row;
}

/** A live (unspent, unexpired) link: its email and whether the browser presenting `browserHash` asked for it. */
export async function liveEmailSignIn(sql: Sql, tokenHash: Buffer, browserHash: Buffer | null) {
  const [row] = await sql<{ email: string; sameBrowser: boolean; expiresAt: Date }[]>`
    select email, coalesce(browser_hash = ${browserHash}, false) as same_browser, expires_at from email_sign_ins
    where token_hash = ${tokenHash} and used_at is null and expires_at > now()`;
  return row ?? null;
}

/**
 * Spends a live link, once: only when the browser's nonce matches, or when `anyBrowser` (the person
 * confirmed the account shown). Null when nothing was spent.
 */
export async function spendEmailSignIn(sql: Sql, tokenHash: Buffer, browserHash: Buffer | null, anyBrowser: boolean) {
  const [row] = await sql<{ email: string }[]>`
    update email_sign_ins set used_at = now()
    where token_hash = ${tokenHash} and used_at is null and expires_at > now()
      and (${anyBrowser} or browser_hash = ${browserHash})
    returning email`;
  return row ?? null;
}

/** Sign-in links expired or spent over a day ago (kept that long so "already used" can be told from "no such link"); the number removed. */
export async function deleteSpentSignIns(sql: Sql): Promise<number> {
  const gone = await sql`
    delete from email_sign_ins where expires_at < now() - interval '1 day' or used_at < now() - interval '1 day'`;
  return gone.count;
}
