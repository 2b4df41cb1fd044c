import type { Sql } from '../core/db.js';
import { notFound } from '../core/errors.js';
import { isUuid } from '../core/ids.js';

export interface BuildRow {
  id: string;
  workspaceId: string;
  projectId: string;
  uploadId: string;
  kind: 'static' | 'container';
  manifest: Record<string, unknown>;
  sizeBytes: string;
  note: string | null;
  rehearsal: Record<string, unknown> | null;
  fileCount: number | null;
  image: Record<string, unknown> | null;
  createdBy: string | null;
  createdAt: Date;
}

/** Static files of a build live under this prefix; nothing is served before the build row exists. */
export const buildFilesPrefix = (buildId: string) => `builds/${buildId}/files/`;

export async function buildIn(sql: Sql, projectId: string, buildId: string): Promise<BuildRow> {
  if (!isUuid(buildId)) throw notFound();
  const [row] = await sql<BuildRow[]>`select * from builds where id = ${buildId} and project_id = ${projectId}`;
  if (!row) throw notFound();
  return row;
}

export function buildsOf(sql: Sql, projectId: string) {
  return sql<BuildRow[]>`select * from builds where project_id = ${projectId} order by created_at desc, id`;
}

export async function deploysInLastDay(sql: Sql, workspaceId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from builds where workspace_id = ${workspaceId} and created_at > now() - interval '24 hours'`;
  return row.n;
}
