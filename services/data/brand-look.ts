import { drawnLook, type DrawnLook } from '../core/rules/room-theme.js';
import type { Db } from '../core/infra/db.js';
import { brandOf, type BrandRow } from './brand.sql.js';
import { planFor } from './workspaces.sql.js';

// What a workspace's rooms show of its brand and theme, for the api's replies and the room's
// page alike: the stored brand, whether the plan shows it, and the look the room draws.

export interface WorkspaceLook {
  brand: BrandRow;
  /** The plan has its own branding: the room shows the brand and theme, not the made-with badge. */
  planAllows: boolean;
  drawn: DrawnLook;
}

export async function workspaceLook(sql: Db, workspaceId: string): Promise<WorkspaceLook> {
  const brand = await brandOf(sql, workspaceId);
  const planAllows = (await planFor(sql, workspaceId)).ownBranding;
  return { brand, planAllows, drawn: drawnLook({ theme: brand.theme, accent: brand.accent }, planAllows) };
}
