import type { Sql } from '../../core/infra/db.js';
import { refused } from '../../core/rules/errors.js';
import { liftOwnerPause, pauseByOwner, roomPauseOf } from '../../data/pauses.js';
import { projectIn } from '../../data/projects.sql.js';
import { recordHistory } from '../../data/room-history.sql.js';

// Pausing and resuming a room (spec 4.2 pauseRoom, resumeRoom); what a pause means is in
// services/data/pauses.ts, which the room reads too.

/**
 * pauseRoom: pauses with a note (room.pause). On a room the owner already paused only the note
 * changes (room.message): who paused and when stay. A blank note is no note.
 */
export async function pauseRoom(sql: Sql, actor: { workspaceId: string; personId: string }, projectId: string, message: string | null) {
  const project = await projectIn(sql, actor.workspaceId, projectId);
  const note = message?.trim() ? message : null;
  await sql.begin(async (tx) => {
    const { wasPaused } = await pauseByOwner(tx, project, actor.personId, note);
    await recordHistory(tx, {
      workspaceId: project.workspaceId,
      projectId: project.id,
      kind: wasPaused ? 'room.message' : 'room.pause',
      byPerson: actor.personId,
      message: note,
    });
  });
  return roomPauseOf(sql, project);
}

/** resumeRoom: lifts the owner's pause (room.resume); 409 taken when the owner has not paused it. A platform pause stays. */
export async function resumeRoom(sql: Sql, actor: { workspaceId: string; personId: string }, projectId: string) {
  const project = await projectIn(sql, actor.workspaceId, projectId);
  await sql.begin(async (tx) => {
    if (!(await liftOwnerPause(tx, project.id))) throw refused(409, 'taken', 'the room is not paused by its owner');
    await recordHistory(tx, { workspaceId: project.workspaceId, projectId: project.id, kind: 'room.resume', byPerson: actor.personId });
  });
  return roomPauseOf(sql, project);
}
