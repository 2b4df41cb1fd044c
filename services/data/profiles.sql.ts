import type { Sql } from '../core/infra/db.js';

// A person's community profile: the public handle (people.handle, unique among people) and bio.

export interface ProfileRow {
  handle: string | null;
  bio: string | null;
}

export async function profileOf(sql: Sql, personId: string): Promise<ProfileRow> {
  const [row] = await sql<ProfileRow[]>`select handle, bio from people where id = ${personId}`;
  return row ?? { handle: null, bio: null };
}

/** How long a handle given up stays held from others, in days (as a deleted project's slug). */
export const handleHoldDays = 30;

/**
 * Sets the handle and bio; answers null when the handle is another person's, or was given up by
 * another under 30 days ago. A handle this person gives up is held from then. The unique index
 * decides between two people racing for one handle.
 */
export async function writeProfile(
  sql: Sql,
  personId: string,
  profile: { handle: string; bio: string | null },
): Promise<ProfileRow | null> {
  try {
    const [row] = await sql<ProfileRow[]>`
      with before as (select handle from people where id = ${personId}),
      saved as (
        update people set handle = ${profile.handle}, bio = ${profile.bio}
        where id = ${personId}
          and not exists (select 1 from people other where other.handle = ${profile.handle} and other.id <> ${personId})
          and not exists (
            select 1 from released_handles r
            where r.handle = ${profile.handle} and r.person_id is distinct from ${personId}
              and r.released_at > now() - make_interval(days => ${handleHoldDays}))
        returning handle, bio),
      held as (
        insert into released_handles (handle, person_id, released_at)
        select before.handle, ${personId}, now() from before, saved where before.handle is not null and before.handle <> saved.handle
        on conflict (handle) do update set person_id = excluded.person_id, released_at = excluded.released_at)
      select handle, bio from saved`;
    return row ?? null;
  } catch (err) {
    if ((err as { code?: string }).code === '23505') return null;
    throw err;
  }
}

/** The person who holds this handle, with what their public profile may show; null if none. */
export async function personByHandle(sql: Sql, handle: string): Promise<{ id: string; handle: string; bio: string | null } | null> {
  const [row] = await sql<{ id: string; handle: string; bio: string | null }[]>`
    select id, handle, bio from people where handle = ${handle}`;
  return row ?? null;
}
