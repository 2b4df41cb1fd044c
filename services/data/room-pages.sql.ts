import type { Db, Tx } from '../core/db.js';

export type PageKind = 'markdown' | 'html';

/** A room page without its content, as RoomSetup lists it. */
export type PageHead = {
  id: string;
  title: string;
  kind: PageKind;
  /** 0-based, without gaps. */
  position: number;
};

export function pagesOf(sql: Db, projectId: string) {
  return sql<PageHead[]>`select id, title, kind, position from room_pages where project_id = ${projectId} order by position`;
}

/** Holds the project's pages for the rest of the transaction, so positions stay whole. */
export async function lockPages(tx: Tx, projectId: string) {
  await tx`select pg_advisory_xact_lock(hashtext('pages:' || ${projectId}))`;
}
