import type { Db } from '../core/infra/db.js';

// A project's room row (rooms): the order of its apps (orderApps). Its pause columns are read and
// written in pauses.ts, its pages are room_pages (room-pages.sql.ts).

/** The room's own app order; null when the owner never set one (the manifest's order then). */
export async function appOrderOf(db: Db, projectId: string): Promise<string[] | null> {
  const [room] = await db<{ appOrder: string[] | null }[]>`select app_order from rooms where project_id = ${projectId}`;
  return room?.appOrder ?? null;
}

export async function saveAppOrder(db: Db, project: { id: string; workspaceId: string }, appOrder: string[] | null): Promise<void> {
  await db`
    insert into rooms (project_id, workspace_id, app_order) values (${project.id}, ${project.workspaceId}, ${appOrder})
    on conflict (project_id) do update set app_order = excluded.app_order`;
}
