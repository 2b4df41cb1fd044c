import type { Db } from '../core/infra/db.js';

// What a listed project shows besides its card and build (issue 28, M5), read for the listing
// checks: its room pages, its workspace's brand name, the credited person's bio; and which listed
// cards a change of the brand or the bio touches.

export interface RoomPageText {
  title: string;
  kind: 'markdown' | 'html';
  content: string;
}

/** The room pages in order, each cut to `maxChars` and at most `maxPages` of them. */
export function roomPagesToCheck(sql: Db, projectId: string, caps: { maxPages: number; maxChars: number }) {
  return sql<RoomPageText[]>`
    select title, kind, left(content, ${caps.maxChars}) as content from room_pages
    where project_id = ${projectId} order by position limit ${caps.maxPages}`;
}

/** The words shown with the project that are not on its card: the brand name and the credited bio. */
export async function shownWordsOf(sql: Db, projectId: string): Promise<{ brandName: string | null; bio: string | null }> {
  const [row] = await sql<{ brandName: string | null; bio: string | null }[]>`
    select b.name as brand_name, cp.bio
    from projects p left join workspace_brands b on b.workspace_id = p.workspace_id
      left join cards c on c.project_id = p.id left join people cp on cp.id = c.credit_person_id
    where p.id = ${projectId}`;
  return row ?? { brandName: null, bio: null };
}

/** The listed cards' projects of a workspace (its brand changed), or crediting a person (their bio changed). */
export async function listedProjectsOf(sql: Db, by: { workspaceId: string } | { creditPersonId: string }): Promise<string[]> {
  const rows =
    'workspaceId' in by
      ? await sql<{ projectId: string }[]>`select project_id from cards where workspace_id = ${by.workspaceId} and status = 'listed'`
      : await sql<
          { projectId: string }[]
        >`select project_id from cards where credit_person_id = ${by.creditPersonId} and status = 'listed'`;
  return rows.map((r) => r.projectId);
}
