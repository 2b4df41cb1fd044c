import type { Sql } from '../core/infra/db.js';
import { cardOnCommunity } from '../data/cards.sql.js';
import { setTakenDown } from '../data/projects.sql.js';
import { pullCard } from './ops-review.js';

/** A project's platform pause (spec 7: takedown), by slug of a project that is not deleted. */
async function setTakedown(sql: Sql, slug: string, down: boolean): Promise<string> {
  const projectId = await setTakenDown(sql, slug, down);
  if (!projectId) throw new Error(`no project with slug ${slug}`);
  // A takedown also takes its listing off the community, with the notice that says so.
  const card = await cardOnCommunity(sql, projectId);
  if (down && card) await pullCard(sql, slug, 'taken down by the platform', 'takedown');
  return `${slug}: ${down ? 'taken down' : 'restored'}`;
}

export const opsProjectCommands: Record<string, (sql: Sql, slug: string) => Promise<string>> = {
  takedown: (sql, slug) => setTakedown(sql, slug, true),
  restore: (sql, slug) => setTakedown(sql, slug, false),
};
