import type { Sql } from '../core/db.js';

// A person's community profile: the public handle (people.handle, unique among people) and bio.

export interface ProfileRow { handle: string | null; bio: string | null }

export async function profileOf(sql: Sql, personId: string): Promise<ProfileRow> {
  const [row] = await sql<ProfileRow[]>`select handle, bio from people where id = ${personId}`;
  return row ?? { handle: null, bio: null };
}

/**
 * Sets the handle and bio; answers null when the handle is another person's. The unique index
 * decides between two people racing for one handle.
 */
export async function writeProfile(sql: Sql, personId: string, profile: { handle: string; bio: string | null }): Promise<ProfileRow | null> {
  try {
    const [row] = await sql<ProfileRow[]>`
      update people set handle = ${profile.handle}, bio = ${profile.bio}
      where id = ${personId}
        and not exists (select 1 from people other where other.handle = ${profile.handle} and other.id <> ${personId})
      returning handle, bio`;
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
