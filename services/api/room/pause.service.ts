import type { RoomPause } from '../../contract/resources/room.js';
import type { Sql } from '../../core/db.js';
import { refused } from '../../core/errors.js';
import { displayNameOf } from '../people/people.sql.js';
import { platformPause } from '../projects/projects.service.js';
import { projectIn, type ProjectRow } from '../projects/projects.sql.js';
import { recordHistory } from './history.sql.js';

// The owner's pause of a room (spec 3, Room): every working link shows who paused and the note,
// and no demo starts. Deploys and new links still work. A platform pause is separate and wins.

export type OwnerPause = {
  by: { userId: string; displayName: string } | null;
  message: string | null;
  at: string;
};

/** The room's pause as RoomPause: the owner's, the platform's, and what a viewer meets. */
export async function roomPauseOf(sql: Sql, project: ProjectRow): Promise<RoomPause & { owner: OwnerPause | null }> {
  const system = await platformPause(sql, project);
  const [row] = await sql<{ pausedAt: Date; pausedBy: string | null; pauseMessage: string | null; name: string | null; email: string | null }[]>`
    select r.paused_at, r.paused_by, r.pause_message, p.name, p.email
    from rooms r left join people p on p.id = r.paused_by
    where r.project_id = ${project.id} and r.paused_at is not null`;
  const owner: OwnerPause | null = row
    ? {
        by: row.pausedBy && row.email !== null ? { userId: row.pausedBy, displayName: displayNameOf({ name: row.name ?? '', email: row.email }) } : null,
        message: row.pauseMessage,
        at: row.pausedAt.toISOString(),
      }
    : null;
  return { owner, system, viewers: system ? 'unavailable' : owner ? 'paused' : 'room' };
}

/**
 * pauseRoom: pauses with a note (room.pause). On a room the owner already paused only the note
 * changes (room.message): who paused and when stay. A blank note is no note.
 */
export async function pauseRoom(sql: Sql, actor: { workspaceId: string; personId: string }, projectId: string, message: string | null) {
  const project = await projectIn(sql, actor.workspaceId, projectId);
  const note = message?.trim() ? message : null;
  await sql.begin(async (tx) => {
    await tx`insert into rooms (project_id, workspace_id) values (${project.id}, ${project.workspaceId}) on conflict (project_id) do nothing`;
    const [room] = await tx<{ pausedAt: Date | null }[]>`select paused_at from rooms where project_id = ${project.id} for update`;
    if (room.pausedAt) {
      await tx`update rooms set pause_message = ${note} where project_id = ${project.id}`;
    } else {
      await tx`update rooms set paused_at = now(), paused_by = ${actor.personId}, pause_message = ${note} where project_id = ${project.id}`;
    }
    await recordHistory(tx, {
      workspaceId: project.workspaceId, projectId: project.id, kind: room.pausedAt ? 'room.message' : 'room.pause', byPerson: actor.personId, message: note,
    });
  });
  return roomPauseOf(sql, project);
}

/** resumeRoom: lifts the owner's pause (room.resume); 409 taken when the owner has not paused it. A platform pause stays. */
export async function resumeRoom(sql: Sql, actor: { workspaceId: string; personId: string }, projectId: string) {
  const project = await projectIn(sql, actor.workspaceId, projectId);
  await sql.begin(async (tx) => {
    const [lifted] = await tx`
      update rooms set paused_at = null, paused_by = null, pause_message = null
      where project_id = ${project.id} and paused_at is not null returning project_id`;
    if (!lifted) throw refused(409, 'taken', 'the room is not paused by its owner');
    await recordHistory(tx, { workspaceId: project.workspaceId, projectId: project.id, kind: 'room.resume', byPerson: actor.personId });
  });
  return roomPauseOf(sql, project);
}
