import type { RoomPause } from '@demo-rooms/contract';
import type { Db, Sql } from '../core/infra/db.js';
import { Refusal } from '../core/rules/errors.js';
import { displayNameOf } from './people.sql.js';
import type { ProjectRow } from './projects.sql.js';
import { workspaceById } from './workspaces.sql.js';

// A project's pauses, read by the api (deploys, links, room settings) and the room (entry):
// the platform's (takedown, suspended workspace, over the plan) and the owner's (spec 3, Room:
// every working link shows who paused and the note, and no demo starts; deploys and new links
// still work). A platform pause is separate and wins.

/**
 * 423 while the platform pauses the project: taken down, its workspace suspended, or the
 * workspace over its plan. Nothing can be deployed and no link made then (spec 7).
 */
export async function assertNotPaused(sql: Sql, project: ProjectRow): Promise<void> {
  const cause = await platformPause(sql, project);
  if (cause) throw new Refusal(423, pauseText[cause], 'paused', { cause });
}

export type PlatformPause = 'over-limit' | 'suspended' | 'takedown';

const pauseText: Record<PlatformPause, string> = {
  takedown: 'This project was taken down by the platform.',
  suspended: 'This workspace is suspended by the platform.',
  'over-limit': 'This workspace holds more projects than its plan allows.',
};

export async function platformPause(sql: Sql, project: ProjectRow): Promise<PlatformPause | null> {
  if (project.takenDownAt) return 'takedown';
  const ws = await workspaceById(sql, project.workspaceId);
  if (ws.suspendedAt) return 'suspended';
  if (project.overLimitAt) return 'over-limit';
  return null;
}

export type OwnerPause = {
  by: { userId: string; displayName: string } | null;
  message: string | null;
  at: string;
};

/** The room's pause as RoomPause: the owner's, the platform's, and what a viewer meets. */
export async function roomPauseOf(sql: Sql, project: ProjectRow): Promise<RoomPause & { owner: OwnerPause | null }> {
  const system = await platformPause(sql, project);
  const [row] = await sql<
    { pausedAt: Date; pausedBy: string | null; pauseMessage: string | null; name: string | null; email: string | null }[]
  >`
    select r.paused_at, r.paused_by, r.pause_message, p.name, p.email
    from rooms r left join people p on p.id = r.paused_by
    where r.project_id = ${project.id} and r.paused_at is not null`;
  const owner: OwnerPause | null = row
    ? {
        by:
          row.pausedBy && row.email !== null
            ? { userId: row.pausedBy, displayName: displayNameOf({ name: row.name ?? '', email: row.email }) }
            : null,
        message: row.pauseMessage,
        at: row.pausedAt.toISOString(),
      }
    : null;
  return { owner, system, viewers: system ? 'unavailable' : owner ? 'paused' : 'room' };
}

/**
 * The owner pauses the room with a note, or, on a room the owner already paused, changes only the
 * note (who paused and when stay). Returns whether it was paused already. Inside the caller's
 * transaction: the room's row is locked until it ends.
 */
export async function pauseByOwner(tx: Db, project: ProjectRow, personId: string, note: string | null): Promise<{ wasPaused: boolean }> {
  await tx`insert into rooms (project_id, workspace_id) values (${project.id}, ${project.workspaceId}) on conflict (project_id) do nothing`;
  const [room] = await tx<{ pausedAt: Date | null }[]>`select paused_at from rooms where project_id = ${project.id} for update`;
  if (room.pausedAt) {
    await tx`update rooms set pause_message = ${note} where project_id = ${project.id}`;
  } else {
    await tx`update rooms set paused_at = now(), paused_by = ${personId}, pause_message = ${note} where project_id = ${project.id}`;
  }
  return { wasPaused: Boolean(room.pausedAt) };
}

/** Lifts the owner's pause; false when the owner has not paused the room (a platform pause is not touched). */
export async function liftOwnerPause(db: Db, projectId: string): Promise<boolean> {
  const [lifted] = await db`
    update rooms set paused_at = null, paused_by = null, pause_message = null
    where project_id = ${projectId} and paused_at is not null returning project_id`;
  return Boolean(lifted);
}
