import type { Sql } from '../../services/core/db.js';
import type { Storage } from '../../services/core/storage.js';
import { uploadKey } from '../../services/data/uploads.sql.js';
import { slugHoldDays } from '../../services/data/projects.sql.js';
import { screenshotPrefix } from '../../services/data/comments.sql.js';

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
      const [project] = await tx<{ id: string }[]>`
        select id from projects
        where deleted_at < now() - make_interval(days => ${slugHoldDays}) and purged_at is null
        order by deleted_at
        limit 1
        for update skip locked`;
      if (!project) return false;
      const builds = await tx<{ id: string }[]>`select id from builds where project_id = ${project.id}`;
      const uploads = await tx<{ id: string }[]>`select id from uploads where project_id = ${project.id}`;
      // The whole of builds/<id>/, not only files/: whatever else a build keeps there goes too.
      for (const { id } of builds) totals.objects += await storage.deletePrefix(`builds/${id}/`);
      for (const { id } of uploads) totals.objects += await storage.deletePrefix(uploadKey(id));
      // Viewers' comment screenshots go with the project's other bytes; the comments' rows stay.
      totals.objects += await storage.deletePrefix(screenshotPrefix(project.id));
      await tx`update projects set purged_at = now() where id = ${project.id}`;
      totals.projects += 1;
      return true;
    });
    if (!done) break;
  }
  return totals;
}
