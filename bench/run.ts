// `npm run bench [-- name ...]`: runs each bench/<name>.bench.ts in turn (all of them by
// default), each in its own process, and stops at the first that fails. Most need the test
// services: `node infra/local/test.mjs --services` in another terminal first.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const all = readdirSync(new URL('.', import.meta.url)).filter((f) => f.endsWith('.bench.ts')).sort();
const asked = process.argv.slice(2);
const chosen = asked.length ? all.filter((f) => asked.some((a) => f.startsWith(a))) : all;
if (!chosen.length) {
  console.error(`no bench named ${asked.join(', ')}; there are: ${all.map((f) => f.replace('.bench.ts', '')).join(', ')}`);
  process.exit(1);
}
for (const file of chosen) {
  console.log(`\n## ${file.replace('.bench.ts', '')}`);
  const { status } = spawnSync(process.execPath, ['--import', 'tsx', `bench/${file}`], { stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
}
