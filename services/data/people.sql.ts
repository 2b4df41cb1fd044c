import type { Db, Sql } from '../core/infra/db.js';

export interface PersonRow {
  id: string;
  email: string;
  name: string;
  emailVerified: boolean;
  handle: string | null;
  createdAt: Date;
}

/**
 * The person with this email, created with a personal workspace (Free plan, owner) when absent.
 * Safe under concurrency: the unique email decides who creates.
 */
export async function ensurePerson(sql: Sql, email: string, opts: { name?: string; verified?: boolean } = {}): Promise<PersonRow> {
  const address = email.trim().toLowerCase();
  return sql.begin(async (tx) => {
    const [created] = await tx<PersonRow[]>`
      insert into people (email, name, email_verified) values (${address}, ${opts.name ?? ''}, ${opts.verified ?? false})
      on conflict (email) do nothing returning *`;
    if (!created) {
      const [found] = await tx<PersonRow[]>`
        update people set email_verified = email_verified or ${opts.verified ?? false},
          name = case when name = '' then ${opts.name ?? ''} else name end
        where email = ${address} returning *`;
      return found;
    }
    const [ws] = await tx<{ id: string }[]>`
      insert into workspaces (name, kind, plan) values (${workspaceNameFor(created)}, 'personal', 'free') returning id`;
    await tx`insert into memberships (workspace_id, person_id, role) values (${ws.id}, ${created.id}, 'owner')`;
    await tx`insert into personal_workspaces (person_id, workspace_id) values (${created.id}, ${ws.id})`;
    return created;
  }) as Promise<PersonRow>;
}

/** The name shown for a person who has not chosen one: the email's local part. */
export const displayNameOf = (p: { name: string; email: string }): string => p.name || p.email.split('@')[0];

/** "Ada's workspace", within a workspace name's 80 characters: a long name is cut and ends with "…". */
function workspaceNameFor(p: { name: string; email: string }): string {
  const letters = [...displayNameOf(p)];
  const room = 80 - "'s workspace".length;
  const shown = letters.length > room ? `${letters.slice(0, room - 1).join('')}…` : letters.join('');
  return `${shown}'s workspace`;
}

/** Where a person's photos are kept in the object store: photos/<person id>/<content hash>. */
export const photoPrefix = (personId: string) => `photos/${personId}/`;

/** The content hash of the person's uploaded photo, or null. */
export async function photoOf(sql: Sql, personId: string): Promise<string | null> {
  const [row] = await sql<{ photoHash: string | null }[]>`select photo_hash from people where id = ${personId}`;
  return row?.photoHash ?? null;
}

/** Sets the photo's hash; answers the one it replaced. */
export async function rememberPhoto(sql: Sql, personId: string, hash: string | null): Promise<string | null> {
  const [row] = await sql<{ before: string | null }[]>`
    update people p set photo_hash = ${hash} from people old
    where p.id = ${personId} and old.id = p.id returning old.photo_hash as before`;
  return row?.before ?? null;
}

/** Forgets the photo; answers the hash it had. */
export const forgetPhoto = (sql: Sql, personId: string) => rememberPhoto(sql, personId, null);

/**
 * Sets the name the person chose (trimmed by the caller; 1–80 characters by the contract). Their
 * personal workspace, while it still has the name it was given from the old one (at first the
 * email's local part: "maya's workspace", issue 29), is named from the new one: viewers meet it.
 */
export async function setNameOf(sql: Sql, personId: string, name: string): Promise<void> {
  await sql.begin(async (tx) => {
    const [before] = await tx<PersonRow[]>`select * from people where id = ${personId} for update`;
    if (!before) return;
    await tx`update people set name = ${name} where id = ${personId}`;
    await tx`
      update workspaces w set name = ${workspaceNameFor({ ...before, name })}
      from personal_workspaces pw
      where pw.person_id = ${personId} and w.id = pw.workspace_id and w.name = ${workspaceNameFor(before)}`;
  });
}

export async function emailOf(sql: Sql, personId: string): Promise<string | null> {
  const [row] = await sql<{ email: string }[]>`select email from people where id = ${personId}`;
  return row?.email ?? null;
}

/** The name alone (the operator's issueToken); setNameOf also renames the personal workspace. */
export async function overwriteName(db: Db, personId: string, name: string): Promise<void> {
  await db`update people set name = ${name} where id = ${personId}`;
}

/** The person's email when they verified it; null otherwise (or with no such person). */
export async function verifiedEmailOf(db: Db, personId: string): Promise<string | null> {
  const [row] = await db<{ email: string; emailVerified: boolean }[]>`select email, email_verified from people where id = ${personId}`;
  return row?.emailVerified ? row.email : null;
}

/** Holds the person's row until the transaction ends: one of their requests at a time passes. */
export async function lockPerson(tx: Db, personId: string): Promise<void> {
  await tx`select id from people where id = ${personId} for update`;
}

/** The person with their photo and the name and kind of a workspace (the session's); null when either is gone. */
export async function personInWorkspace(db: Db, personId: string, workspaceId: string) {
  const [row] = await db<(PersonRow & { photoHash: string | null; wsName: string; wsKind: 'personal' | 'team' })[]>`
    select p.*, w.name as ws_name, w.kind as ws_kind
    from people p, workspaces w
    where p.id = ${personId} and w.id = ${workspaceId}`;
  return row ?? null;
}

/** The person's name and email (for displayNameOf); null with no such person. */
export async function nameAndEmailOf(db: Db, personId: string): Promise<{ name: string; email: string } | null> {
  const [person] = await db<{ name: string; email: string }[]>`select name, email from people where id = ${personId}`;
  return person ?? null;
}
