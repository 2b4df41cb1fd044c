import type { Sql } from '../core/db.js';

/** Platform pauses of one project (spec 7: `takedown`). Filled in by the projects area. */
export const opsProjectCommands: Record<string, (sql: Sql, slug: string) => Promise<string>> = {};
