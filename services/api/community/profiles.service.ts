import type { Config } from '../../core/infra/config.js';
import type { Sql } from '../../core/infra/db.js';
import { notFound, refused } from '../../core/rules/errors.js';
import { checkSlug } from '../../core/rules/slug-rules.js';
import { handleHoldDays, personByHandle, profileOf, writeProfile } from '../../data/profiles.sql.js';
import { listings } from './community.service.js';

// Community profiles (spec 2.9, 4.5): the handle follows the slug rules and is unique among
// people; the open profile shows only what the person chose to show for the community.

export const getProfile = (sql: Sql, personId: string) => profileOf(sql, personId);

export async function setProfile(sql: Sql, personId: string, input: { handle: string; bio: string | null }) {
  checkSlug(input.handle);
  // A bio of only spaces says nothing: it is no bio.
  const bio = input.bio?.trim() || null;
  const saved = await writeProfile(sql, personId, { handle: input.handle, bio });
  if (!saved) throw refused(422, 'taken', `"${input.handle}" is another person's handle, or was given up under ${handleHoldDays} days ago`);
  return saved;
}

/**
 * The open profile. `name` is the handle and `image` is null: the account's name and picture are
 * given for sign-in and teams, not chosen for the public (docs/decisions/profiles-and-arrangement.md). `projects` are the
 * listed projects whose card credits this person (saveCard's `credit`): no other is ever named.
 */
export async function publicProfile(sql: Sql, config: Config, handle: string) {
  const person = await personByHandle(sql, handle);
  if (!person) throw notFound();
  const projects = (await listings(sql, config, { creditTo: person.handle })).map(({ slug, title, line, url, cover }) => ({
    slug,
    title,
    line,
    url,
    cover,
  }));
  return { handle: person.handle, name: person.handle, bio: person.bio, image: null, projects };
}
