import type { Sql } from '../core/db.js';
import { pullCard } from './ops-review.js';

/** A project's platform pause (spec 7: takedown), by slug of a project that is not deleted. */
async function setTakedown(sql: Sql, slug: string, down: boolean): Promise<string> {
  const rows = await sql`
    update projects set taken_down_at = ${down ? sql`now()` : null}
    where slug = ${slug} and deleted_at is null returning id`;
  if (!rows.length) throw new Error(`no project with slug ${slug}`);
  // A takedown also takes its listing off the community, with the notice that says so.
  const [card] = await sql`select 1 from cards where project_id = ${rows[0].id} and status in ('listed', 'pending')`;
  if (down && card) await pullCard(sql, slug, 'taken down by the platform', 'takedown');
  return `${slug}: ${down ? 'taken down' : 'restored'}`;
}

export const opsProjectCommands: Record<string, (sql: Sql, slug: string) => Promise<string>> = {
  takedown: (sql, slug) => setTakedown(sql, slug, true),
  restore: (sql, slug) => setTakedown(sql, slug, false),
};
