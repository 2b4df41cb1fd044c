import type { Sql } from '../core/infra/db.js';
import { seatsTaken } from './teams.sql.js';

/** What a workspace uses of its plan now. Each area adds its own count here as it lands. */
export async function usageOf(sql: Sql, workspaceId: string) {
  // Seats: members and the invitations still waiting, each of which holds one.
  return { seats: await seatsTaken(sql, workspaceId) };
}
