import type { Db } from '../core/infra/db.js';
import { notFound } from '../core/rules/errors.js';
import { isUuid } from '../core/infra/ids.js';

// A builder's notes on a link (spec 2.5 Note; migrations/00011). Never shown in the room.

export interface NoteRow {
  id: string;
  linkId: string;
  body: string;
  /** The member's display name; null once they are gone. */
  by: string | null;
  createdAt: Date;
}

/** The link's notes, newest first. */
export function notesOf(sql: Db, linkId: string) {
  return sql<NoteRow[]>`
    select n.id, n.link_id, n.body, n.created_at,
           case when p.id is null then null else coalesce(nullif(p.name, ''), split_part(p.email, '@', 1)) end as by
    from link_notes n left join people p on p.id = n.by_person
    where n.link_id = ${linkId} order by n.created_at desc, n.id desc`;
}

export async function addNote(sql: Db, link: { id: string; workspaceId: string }, body: string, personId: string) {
  await sql`insert into link_notes (workspace_id, link_id, body, by_person) values (${link.workspaceId}, ${link.id}, ${body}, ${personId})`;
}

/** The note of this workspace, of a project not deleted: the condition both the look-up and the removal keep. */
const noteOfWorkspace = (sql: Db, workspaceId: string, noteId: string) =>
  sql`n.id = ${noteId} and n.workspace_id = ${workspaceId}
      and exists (select 1 from links l join projects p on p.id = l.project_id where l.id = n.link_id and p.deleted_at is null)`;

/** The link of the workspace's note; 404 for another workspace's, a missing one, or one of a deleted project. */
export async function noteLinkIn(sql: Db, workspaceId: string, noteId: string): Promise<string> {
  if (!isUuid(noteId)) throw notFound();
  const [row] = await sql<{ linkId: string }[]>`select n.link_id from link_notes n where ${noteOfWorkspace(sql, workspaceId, noteId)}`;
  if (!row) throw notFound();
  return row.linkId;
}

/** Removes the note of this workspace, of a project not deleted; answers its link's id. 404 otherwise. */
export async function removeNote(sql: Db, workspaceId: string, noteId: string): Promise<string> {
  if (!isUuid(noteId)) throw notFound();
  const [row] = await sql<{ linkId: string }[]>`
    delete from link_notes n where ${noteOfWorkspace(sql, workspaceId, noteId)}
    returning n.link_id`;
  if (!row) throw notFound();
  return row.linkId;
}
