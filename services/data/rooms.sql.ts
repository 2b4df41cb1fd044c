import type { Db } from '../core/db.js';

// A project's room: its app order (orderApps), pause and settings, one row per project.

/** The app order the builder set (orderApps); null when none was set. */
export async function appOrderOf(sql: Db, projectId: string): Promise<string[] | null> {
  const [room] = await sql<{ appOrder: string[] | null }[]>`select app_order from rooms where project_id = ${projectId}`;
  return room?.appOrder ?? null;
}
