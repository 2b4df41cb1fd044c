// The content half of the layering rule (docs/architecture.md, "SQL lives in services/data"):
// dependency-cruiser sees imports, not queries, so this reads every production source's syntax
// tree and refuses a postgres tagged template (`sql`...``, `tx`...``, `deps.sql`...``) outside
// services/data. `npm run layers` runs it after dependency-cruiser; test/architecture/ proves it
// bites on test/fixtures/layering/.
//
// `node infra/local/sql-in-data.mjs [folder ...]` prints each query found and exits 1 if any.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

// The names a postgres client (or a transaction, or a Db) goes by here: a template tagged with
// one of them, alone or as the last name of a property (`deps.sql`, `ctx.sql`), is a query.
const QUERY_TAGS = new Set(['sql', 'tx', 'db']);

/**
 * Queries that stay where they are, each with its reason. `file` is relative to the scanned
 * root; `text` (when given) is the template's exact text, so a new query in the same file still
 * counts. An entry that matches nothing is reported too, so the list cannot go stale.
 */
export const ALLOWED = [
  { file: 'services/core/infra/http/readiness.ts', text: 'select 1', reason: 'readiness probe: a round trip to Postgres, no table' },
  { file: 'services/room/app.ts', text: 'select 1', reason: 'readiness probe: a round trip to Postgres, no table' },
];

const isProduction = (rel) => /\.(ts|mts|tsx)$/.test(rel) && !/\.test\.tsx?$/.test(rel) && !/\.d\.ts$/.test(rel);
const skipped = (rel) => /(^|\/)(node_modules|dist)(\/|$)/.test(rel) || rel.startsWith('services/data/');

function sourcesUnder(root, folder) {
  const out = [];
  const walk = (rel) => {
    for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = path.posix.join(rel, entry.name);
      if (skipped(child)) continue;
      if (entry.isDirectory()) walk(child);
      else if (isProduction(child)) out.push(child);
    }
  };
  walk(folder);
  return out.sort();
}

function tagName(tag) {
  if (ts.isIdentifier(tag)) return tag.text;
  if (ts.isPropertyAccessExpression(tag)) return tag.name.text;
  return null;
}

/** Every query template in one file's text: its line and its text, outermost only. */
export function queriesIn(fileName, text) {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (ts.isTaggedTemplateExpression(node) && QUERY_TAGS.has(tagName(node.tag))) {
      const line = source.getLineAndCharacterOfPosition(node.template.getStart(source)).line + 1;
      found.push({ line, text: node.template.getText(source).slice(1, -1).replace(/\s+/g, ' ').trim() });
      return; // a fragment inside (`${sql`now()`}`) is part of the same query
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Queries outside services/data under `folders` of `root`, as `file:line: text`, sorted. */
export function sqlOutsideData(root, folders, allowed = ALLOWED) {
  const used = new Set();
  const refused = [];
  for (const folder of folders) {
    for (const file of sourcesUnder(root, folder)) {
      for (const q of queriesIn(file, readFileSync(path.join(root, file), 'utf8'))) {
        const entry = allowed.find((a) => a.file === file && (a.text === undefined || a.text === q.text));
        if (entry) used.add(entry);
        else refused.push(`${file}:${q.line}: ${q.text.slice(0, 100)}`);
      }
    }
  }
  const stale = allowed
    .filter((a) => !used.has(a))
    .map((a) => `allow-list entry matches nothing: ${a.file}${a.text ? ` (${a.text})` : ''}`);
  return [...refused, ...stale];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const folders = process.argv.slice(2);
  const problems = sqlOutsideData(root, folders.length ? folders : ['services', 'workers', 'runner']);
  if (problems.length) {
    console.error(
      `sql-lives-in-data: ${problems.length} ${problems.length === 1 ? 'query' : 'queries'} outside services/data (docs/architecture.md)`,
    );
    for (const p of problems) console.error(`  ${p}`);
    process.exit(1);
  }
  console.log('sql-lives-in-data: no query outside services/data');
}
