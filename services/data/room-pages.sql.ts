import type { Db, Tx } from '../core/infra/db.js';

export type PageKind = 'markdown' | 'html';

/** A room page without its content, as RoomSetup lists it. */
export type PageHead = {
  id: string;
  title: string;
  kind: PageKind;
  /** 0-based, without gaps. */
  position: number;
};

export function pagesOf(sql: Db, projectId: string) {
  return sql<PageHead[]>`select id, title, kind, position from room_pages where project_id = ${projectId} order by position`;
}

/** Holds the project's pages for the rest of the transaction, so positions stay whole. */
export async function lockPages(tx: Tx, projectId: string) {
  await tx`select pg_advisory_xact_lock(hashtext('pages:' || ${projectId}))`;
}

/** What the project's pages other than `title` take: how many, and their characters together. */
export async function pagesBesides(sql: Db, projectId: string, title: string): Promise<{ count: number; chars: number }> {
  const [row] = await sql<{ count: number; chars: number }[]>`
    select count(*)::int as count, coalesce(sum(char_length(content)), 0)::bigint::float8 as chars
    from room_pages where project_id = ${projectId} and title <> ${title}`;
  return row;
}

/**
 * Stores a page with the HTML made from it: a new title goes last, an existing one keeps its
 * place and id and takes the new kind, content and HTML. Call with the project's pages locked.
 */
export async function putPage(
  tx: Tx,
  project: { id: string; workspaceId: string },
  page: { title: string; kind: PageKind; content: string; html: string; htmlHash: string },
) {
  const [row] = await tx<{ id: string; title: string; kind: PageKind }[]>`
    insert into room_pages (workspace_id, project_id, title, kind, content, html, html_hash, position)
    values (${project.workspaceId}, ${project.id}, ${page.title}, ${page.kind}, ${page.content}, ${page.html}, ${page.htmlHash},
            (select coalesce(max(position) + 1, 0) from room_pages where project_id = ${project.id}))
    on conflict (project_id, title) do update
      set kind = excluded.kind, content = excluded.content, html = excluded.html, html_hash = excluded.html_hash, updated_at = clock_timestamp()
    returning id, title, kind`;
  return row;
}

/** A page of the project as the room serves it: its title and HTML's hash (null until rendered). */
export async function pageHeadIn(sql: Db, projectId: string, pageId: string) {
  const [row] = await sql<{ id: string; title: string; htmlHash: string | null }[]>`
    select id, title, html_hash from room_pages where id = ${pageId} and project_id = ${projectId}`;
  return row ?? null;
}

/**
 * A page's stored HTML; or, for a page stored without it, its source and the `version` it was
 * read at (updated_at as text, to the microsecond), for storePageHtml.
 */
export async function pageBody(sql: Db, pageId: string) {
  const [row] = await sql<{ kind: PageKind; html: string | null; htmlHash: string | null; content: string | null; version: string }[]>`
    select kind, html, html_hash, case when html is null then content end as content, updated_at::text as version
    from room_pages where id = ${pageId}`;
  return row ?? null;
}

/** Writes back the HTML made for a page stored without it, unless the page changed since `version`. */
export async function storePageHtml(sql: Db, pageId: string, version: string, page: { html: string; htmlHash: string }) {
  await sql`
    update room_pages set html = ${page.html}, html_hash = ${page.htmlHash}
    where id = ${pageId} and html is null and updated_at::text = ${version}`;
}

/** Puts the project's pages in the order of `ids` (every page named once; the caller checked, under lockPages). */
export async function reorderPages(tx: Tx, projectId: string, ids: string[]) {
  await tx`
    update room_pages r set position = o.n - 1
    from unnest(${tx.array(ids)}::uuid[]) with ordinality as o(id, n)
    where r.id = o.id and r.project_id = ${projectId}`;
}

/** Removes a page, later pages closing ranks (under lockPages); false when the project has no such page. */
export async function removePageOf(tx: Tx, projectId: string, pageId: string): Promise<boolean> {
  const [gone] = await tx<{ position: number }[]>`
    delete from room_pages where id = ${pageId} and project_id = ${projectId} returning position`;
  if (!gone) return false;
  await tx`update room_pages set position = position - 1 where project_id = ${projectId} and position > ${gone.position}`;
  return true;
}
