import type { Sql } from '../../core/db.js';
import { notFound, refused } from '../../core/errors.js';
import { isUuid } from '../../core/ids.js';
import { projectIn, type ProjectRow } from '../../data/projects.sql.js';
import { effectiveAppOrder, namedAppOrder } from '../../data/app-order.js';
import { lockPages, pagesOf, type PageHead, type PageKind } from '../../data/room-pages.sql.js';

// The room's setup (spec 2.7 RoomSetup, 4.2): the order of its apps and its pages. Pages are only
// stored here; the room renders and sanitises them.

export interface RoomSetupView {
  appOrder: string[] | null;
  pages: PageHead[];
}

type Actor = { workspaceId: string };

/** The app ids of the live build's manifest, in its order; null when nothing is live. */
async function liveAppIds(sql: Sql, project: ProjectRow): Promise<string[] | null> {
  if (!project.liveBuildId) return null;
  const [build] = await sql<{ manifest: { apps?: { id: string }[] } }[]>`select manifest from builds where id = ${project.liveBuildId}`;
  return (build?.manifest.apps ?? []).map((a) => a.id);
}

export async function roomSetupOf(sql: Sql, project: ProjectRow): Promise<RoomSetupView> {
  const [room] = await sql<{ appOrder: string[] | null }[]>`select app_order from rooms where project_id = ${project.id}`;
  return {
    appOrder: effectiveAppOrder(room?.appOrder ?? null, await liveAppIds(sql, project)),
    pages: [...(await pagesOf(sql, project.id))],
  };
}

export async function getRoomSetup(sql: Sql, actor: Actor, projectId: string) {
  return roomSetupOf(sql, await projectIn(sql, actor.workspaceId, projectId));
}

/**
 * orderApps: the named apps first in the order given, then the rest in the live manifest's order.
 * Ids the live manifest does not know are ignored; naming none known goes back to the manifest's
 * order (null).
 */
export async function orderApps(sql: Sql, actor: Actor, projectId: string, ids: string[]) {
  const project = await projectIn(sql, actor.workspaceId, projectId);
  const named = namedAppOrder(ids, (await liveAppIds(sql, project)) ?? []);
  await sql`
    insert into rooms (project_id, workspace_id, app_order) values (${project.id}, ${project.workspaceId}, ${named})
    on conflict (project_id) do update set app_order = excluded.app_order`;
  return roomSetupOf(sql, project);
}

/** orderPages: `ids` must name every page of the room exactly once, else 422 order. */
export async function orderPages(sql: Sql, actor: Actor, projectId: string, ids: string[]) {
  const project = await projectIn(sql, actor.workspaceId, projectId);
  await sql.begin(async (tx) => {
    await lockPages(tx, project.id);
    const pages = await pagesOf(tx, project.id);
    const given = new Set(ids);
    if (given.size !== ids.length || ids.length !== pages.length || pages.some((p) => !given.has(p.id))) {
      throw refused(422, 'order', 'name every page of the room exactly once');
    }
    await tx`
      update room_pages r set position = o.n - 1
      from unnest(${tx.array(ids)}::uuid[]) with ordinality as o(id, n)
      where r.id = o.id and r.project_id = ${project.id}`;
  });
  return roomSetupOf(sql, project);
}

/** addPage: a new page goes last; a page with the same title (exactly) keeps its place and id and takes the new kind and content. */
export async function addPage(sql: Sql, actor: Actor, projectId: string, input: { title: string; kind: PageKind; content: string }) {
  const project = await projectIn(sql, actor.workspaceId, projectId);
  return sql.begin(async (tx) => {
    await lockPages(tx, project.id);
    const [page] = await tx<{ id: string; title: string; kind: PageKind }[]>`
      insert into room_pages (workspace_id, project_id, title, kind, content, position)
      values (${project.workspaceId}, ${project.id}, ${input.title}, ${input.kind}, ${input.content},
              (select coalesce(max(position) + 1, 0) from room_pages where project_id = ${project.id}))
      on conflict (project_id, title) do update set kind = excluded.kind, content = excluded.content, updated_at = clock_timestamp()
      returning id, title, kind`;
    return page;
  }) as Promise<{ id: string; title: string; kind: PageKind }>;
}

/** removePage: later pages close ranks. */
export async function removePage(sql: Sql, actor: Actor, projectId: string, pageId: string) {
  const project = await projectIn(sql, actor.workspaceId, projectId);
  if (!isUuid(pageId)) throw notFound();
  await sql.begin(async (tx) => {
    await lockPages(tx, project.id);
    const [gone] = await tx<{ position: number }[]>`
      delete from room_pages where id = ${pageId} and project_id = ${project.id} returning position`;
    if (!gone) throw notFound();
    await tx`update room_pages set position = position - 1 where project_id = ${project.id} and position > ${gone.position}`;
  });
  return roomSetupOf(sql, project);
}
