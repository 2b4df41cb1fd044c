import { createSql } from './db.js';
import { migrate } from './migrate.js';

// Run by the launcher and the test runner before any process starts.
const url = process.env.DATABASE_URL;
if (!url) {
  console.error('DATABASE_URL is not set');
  process.exit(1);
}
const sql = createSql(url, { max: 1 });
try {
  await migrate(sql, (line) => console.log(line));
  console.log('migrations applied');
} finally {
  await sql.end();
}
