import { fileURLToPath } from 'node:url';
import shift from 'postgres-shift';
import type { Sql } from './db.js';

const migrationsDir = fileURLToPath(new URL('../../../migrations', import.meta.url));

/** Applies the numbered SQL files of migrations/ that this database has not seen (forwards only). */
export async function migrate(sql: Sql, log: (line: string) => void = () => {}): Promise<void> {
  await shift({
    sql: sql as never,
    path: migrationsDir,
    before: ({ migration_id, name }: { migration_id: number; name: string }) => log(`migrating ${migration_id} ${name}`),
  });
}
