import type { Db, Sql } from '../../core/infra/db.js';
import { notFound, refused } from '../../core/rules/errors.js';
import { isUuid } from '../../core/infra/ids.js';
import { projectIn, type ProjectRow } from '../../data/projects.sql.js';
import { effectiveAppOrder, namedAppOrder } from '../../data/app-order.js';
import {
  lockPages,
  pagesBesides,
  pagesOf,
  putPage,
  removePageOf,
  reorderPages,
  type PageHead,
  type PageKind,
} from '../../data/room-pages.sql.js';
import { liveManifestOf } from '../../data/builds.sql.js';
import { appOrderOf, saveAppOrder } from '../../data/rooms.sql.js';
import { renderStoredPage } from '../../core/infra/room-pages/page-renderer.js';
import { ROOM_PAGES_CHARS_MAX, ROOM_PAGES_MAX } from '@demo-rooms/contract';

// The room's setup (spec 2.7 RoomSetup, 4.2): the order of its apps and its pages. Pages are
// rendered and sanitised when added, and stored with their HTML; the room serves that HTML.

export interface RoomSetupView {
  appOrder: string[] | null;
  pages: PageHead[];
}

type Actor = { workspaceId: string };

/** The app ids of the live build's manifest, in its order; null when nothing is live. */
async function liveAppIds(sql: Sql, project: ProjectRow): Promise<string[] | null> {
  if (!project.liveBuildId) return null;
  const build = await liveManifestOf(sql, project);
  return (build?.manifest.apps ?? []).map((a) => a.id);
}

export async function roomSetupOf(sql: Sql, project: ProjectRow): Promise<RoomSetupView> {
  return {
    appOrder: effectiveAppOrder(await appOrderOf(sql, project.id), await liveAppIds(sql, project)),
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
  await saveAppOrder(sql, project, named);
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
    await reorderPages(tx, project.id, ids);
  });
  return roomSetupOf(sql, project);
}

/**
 * addPage: a new page goes last; a page with the same title (exactly) keeps its place and id and
 * takes the new kind and content. A room holds at most ROOM_PAGES_MAX pages of
 * ROOM_PAGES_CHARS_MAX characters together (422 size, nothing stored). The page is rendered and
 * sanitised here, once, off the event loop (503 while the renderer is full), and the room serves
 * the stored HTML.
 */
export async function addPage(sql: Sql, actor: Actor, projectId: string, input: { title: string; kind: PageKind; content: string }) {
  const project = await projectIn(sql, actor.workspaceId, projectId);
  // Checked before the render, so a refused page costs no rendering, and again under the lock.
  await roomForPage(sql, project.id, input);
  const rendered = await renderStoredPage(input.kind, input.content, project.workspaceId);
  return sql.begin(async (tx) => {
    await lockPages(tx, project.id);
    await roomForPage(tx, project.id, input);
    return putPage(tx, project, { ...input, html: rendered.html, htmlHash: rendered.hash });
  });
}

/** Refuses a page the room has no room for: one page too many, or too many characters together. */
async function roomForPage(sql: Db, projectId: string, page: { title: string; content: string }) {
  const others = await pagesBesides(sql, projectId, page.title);
  if (others.count >= ROOM_PAGES_MAX) throw refused(422, 'size', `a room holds at most ${ROOM_PAGES_MAX} pages; remove one first`);
  if (others.chars + page.content.length > ROOM_PAGES_CHARS_MAX) {
    throw refused(422, 'size', `a room's pages hold at most ${ROOM_PAGES_CHARS_MAX.toLocaleString('en')} characters together`);
  }
}

/** removePage: later pages close ranks. */
export async function removePage(sql: Sql, actor: Actor, projectId: string, pageId: string) {
  const project = await projectIn(sql, actor.workspaceId, projectId);
  if (!isUuid(pageId)) throw notFound();
  await sql.begin(async (tx) => {
    await lockPages(tx, project.id);
    if (!(await removePageOf(tx, project.id, pageId))) throw notFound();
  });
  return roomSetupOf(sql, project);
}
