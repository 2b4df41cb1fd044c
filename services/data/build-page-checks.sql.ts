import type { Db } from '../core/infra/db.js';
import type { Finding } from './cards.sql.js';

// What the listing checks found in a static build's pages (migrations/00020): computed once per
// build and read by every listing and rehearsal after it.

export interface BuildPageChecks {
  blocked: Finding[];
  warnings: Finding[];
  pagesRead: number;
  bytesRead: number;
}

export async function buildPageChecksOf(sql: Db, buildId: string): Promise<BuildPageChecks | null> {
  const [row] = await sql<BuildPageChecks[]>`
    select blocked, warnings, pages_read, bytes_read::float8 as bytes_read from build_page_checks where build_id = ${buildId}`;
  return row ?? null;
}

/** Keeps the first findings stored: two processes that checked the same build found the same. */
export async function storeBuildPageChecks(sql: Db, buildId: string, c: BuildPageChecks) {
  await sql`
    insert into build_page_checks (build_id, blocked, warnings, pages_read, bytes_read)
    values (${buildId}, ${JSON.stringify(c.blocked)}::text::jsonb, ${JSON.stringify(c.warnings)}::text::jsonb, ${c.pagesRead}, ${c.bytesRead})
    on conflict (build_id) do nothing`;
}
