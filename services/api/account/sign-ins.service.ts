import type { Sql } from '../../core/db.js';
import { notFound } from '../../core/errors.js';
import { passkeyCount } from '../../data/passkeys.sql.js';

// The ways into an account (spec 2.10 SignIns, 4.6 signIns and disconnect). The two external
// providers are not wired yet (issue 19, part 2): each shows as not set up and never linked, so
// disconnect has nothing to unlink. Emailed links always work for the account's own address.

export const providerNames = ['github', 'google'] as const;

export async function signInsOf(sql: Sql, personId: string) {
  return {
    providers: providerNames.map((provider) => ({ provider, setUp: false, linked: false })),
    passkeys: await passkeyCount(sql, personId),
    magicLinks: true,
  };
}

/** No provider can be linked yet, so there is none to disconnect: 404 for every name. */
export async function disconnectProvider(_sql: Sql, _personId: string, _provider: string): Promise<never> {
  throw notFound();
}
