import type { Db } from '../core/infra/db.js';
import { screenshotPrefix } from './comments.sql.js';
import { uploadKey } from './uploads.sql.js';
import { coverPrefix } from './cards.sql.js';

/**
 * Every object-store prefix that holds a project's bytes: each build's whole `builds/<id>/`
 * (files and whatever else a build keeps), each upload's bytes (container bundles included) and
 * viewers' comment screenshots and its card's covers. What goes when a project's stored weight is
 * purged.
 */
export async function objectPrefixesOfProject(db: Db, projectId: string): Promise<string[]> {
  const builds = await db<{ id: string }[]>`select id from builds where project_id = ${projectId}`;
  const uploads = await db<{ id: string }[]>`select id from uploads where project_id = ${projectId}`;
  return [
    ...builds.map(({ id }) => `builds/${id}/`),
    ...uploads.map(({ id }) => uploadKey(id)),
    screenshotPrefix(projectId),
    coverPrefix(projectId),
  ];
}
