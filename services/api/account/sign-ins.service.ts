import type { Config } from '../../core/infra/config.js';
import type { Sql } from '../../core/infra/db.js';
import { notFound, refused } from '../../core/rules/errors.js';
import { passkeyCount } from '../../data/passkeys.sql.js';
import { providerLinksOf, unlinkProvider } from '../../data/provider-links.sql.js';
import { isProvider, providerNames, providerSetUp } from '../auth/providers.service.js';

// The ways into an account (spec 2.10 SignIns, 4.6 signIns and disconnect). Emailed links always
// reach the account's own address (`magicLinks: true`), but they do not count as a way in when a
// provider is disconnected: the spec's rule (no other provider, no passkey) stands as written,
// since a provider's email may be one the person never reads (docs/decisions/sign-in-providers-and-passkeys.md).

export async function signInsOf(sql: Sql, config: Config, personId: string) {
  const linked = new Set((await providerLinksOf(sql, personId)).map((l) => l.provider));
  return {
    providers: providerNames.map((provider) => ({ provider, setUp: providerSetUp(config, provider), linked: linked.has(provider) })),
    passkeys: await passkeyCount(sql, personId),
    magicLinks: true,
  };
}

/** Unlinks a provider: 404 when not linked; 422 while it is the only way in. */
export async function disconnectProvider(sql: Sql, config: Config, personId: string, provider: string) {
  if (!isProvider(provider)) throw notFound();
  const links = await providerLinksOf(sql, personId);
  if (!links.some((l) => l.provider === provider)) throw notFound();
  if (links.length === 1 && (await passkeyCount(sql, personId)) === 0) {
    throw refused(422, 'only-way-in', 'add a passkey or link another provider first');
  }
  await unlinkProvider(sql, personId, provider);
  return signInsOf(sql, config, personId);
}
