import type { Db } from '../core/infra/db.js';

// What a content origin learnt about the room's capture agent in a session's frame
// (migrations/00010): whether the latest page it sent that session carries a
// Content-Security-Policy that stops the agent. A comment whose frame never answered is then
// `blocked` rather than `no-answer`.

/** Records whether the latest page sent to the session on `originLabel` stops the agent. */
export async function noteCaptureBlock(sql: Db, sessionId: string, originLabel: string, blocked: boolean) {
  await sql`
    insert into capture_blocks (session_id, origin_label, blocked) values (${sessionId}, ${originLabel}, ${blocked})
    on conflict (session_id, origin_label) do update set blocked = excluded.blocked, at = now()`;
}

/** Whether the latest page the session got on `originLabel` stops the agent. */
export async function captureBlocked(sql: Db, sessionId: string, originLabel: string): Promise<boolean> {
  const [row] = await sql<{ blocked: boolean }[]>`
    select blocked from capture_blocks where session_id = ${sessionId} and origin_label = ${originLabel}`;
  return row?.blocked ?? false;
}
