import type { Sql } from '../../services/core/infra/db.js';
import type { Storage } from '../../services/core/infra/storage.js';
import { markProjectPurged, projectToPurge } from '../../services/data/projects.sql.js';
import { objectPrefixesOfProject } from '../../services/data/project-objects.sql.js';

/**
 * Projects deleted longer ago than the slug hold (30 days). The slug is free from then on without
 * anything being written (the hold is read from `deleted_at`); what goes is the stored weight:
 * every build's files, every upload's bytes (container bundles included) and viewers' comment
 * screenshots in the object store.
 * The rows stay, and `purged_at` marks the project so later sweeps pass it by.
 *
 * One project per transaction, its row locked meanwhile (a second sweep skips it); bytes go
 * before the mark, so a sweep that dies halfway is finished by the next one.
 */
export async function sweepDeletedProjects(sql: Sql, storage: Storage, batch = 20): Promise<{ projects: number; objects: number }> {
  const totals = { projects: 0, objects: 0 };
  while (totals.projects < batch) {
    const done = await sql.begin(async (tx) => {
      const project = await projectToPurge(tx);
      if (!project) return false;
      // Builds, uploads and viewers' comment screenshots; the comments' rows stay.
      for (const prefix of await objectPrefixesOfProject(tx, project.id)) totals.objects += await storage.deletePrefix(prefix);
      await markProjectPurged(tx, project.id);
      totals.projects += 1;
      return true;
    });
    if (!done) break;
  }
  return totals;
}
