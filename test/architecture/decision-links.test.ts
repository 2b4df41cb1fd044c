import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The decision record (docs/decisions/, issue 49) stays a record: every link or path into it names
// an entry file (and heading) that exists, nothing links to the log it replaced, each file stays
// short enough to read in one go, and no entry is titled by the issue that made it.

const root = path.resolve(import.meta.dirname, '../..');
const record = path.join(root, 'docs/decisions');
const oldLog = path.join(root, 'docs/decisions.md');
const MAX_LINES = 160;

const skipped = new Set(['node_modules', '.git', 'dist', '.data', 'test-output', 'coverage']);
const scanned = /\.(md|ts|tsx|mjs|cjs|js|sql|ya?ml)$/;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (skipped.has(e.name)) return [];
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return filesUnder(full);
    return scanned.test(e.name) ? [full] : [];
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (title: string) =>
  title
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

const headingsOf = (text: string) => [...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => m[1]);
const rel = (file: string) => path.relative(root, file);

/** Each place a file points into the record: `docs/decisions/<file>.md[#anchor]` anywhere, and relative markdown links. */
function referencesIn(file: string, text: string): { target: string; anchor?: string; line: number }[] {
  const lineOf = (index: number) => text.slice(0, index).split('\n').length;
  const found: { target: string; anchor?: string; line: number }[] = [];
  for (const m of text.matchAll(/docs\/decisions(\.md\b|\/[\w.-]*\.md)(?:#([\w-]+))?/g))
    found.push({ target: path.join(root, `docs/decisions${m[1]}`), anchor: m[2], line: lineOf(m.index) });
  if (file.endsWith('.md'))
    for (const m of text.matchAll(/\]\(([^)\s#]*\.md)(?:#([\w-]+))?\)/g)) {
      if (/^[a-z]+:/i.test(m[1]) || m[1].startsWith('docs/decisions')) continue;
      const target = path.resolve(path.dirname(file), m[1]);
      if (target === oldLog || target.startsWith(record + path.sep) || file.startsWith(record + path.sep))
        found.push({ target, anchor: m[2], line: lineOf(m.index) });
    }
  return found;
}

const entryFiles = readdirSync(record)
  .filter((f) => f.endsWith('.md'))
  .map((f) => path.join(record, f));

describe('the decision record', () => {
  it('has an index that lists every entry file', () => {
    const index = readFileSync(path.join(record, 'README.md'), 'utf8');
    for (const file of entryFiles) if (!file.endsWith('README.md')) expect(index, rel(file)).toContain(`](${path.basename(file)})`);
  });

  it('is linked only where the file and heading exist, and never through the old log', () => {
    const problems: string[] = [];
    for (const file of filesUnder(root)) {
      if (file === oldLog || file === import.meta.filename) continue;
      const text = readFileSync(file, 'utf8');
      for (const ref of referencesIn(file, text)) {
        const where = `${rel(file)}:${ref.line}`;
        if (ref.target === oldLog) {
          // The record's index may name the old log for its history in git; nothing may link to it.
          if (!file.startsWith(record + path.sep)) problems.push(`${where}: links to docs/decisions.md; name the entry in docs/decisions/`);
        } else if (!existsSync(ref.target)) problems.push(`${where}: ${rel(ref.target)} does not exist`);
        else if (ref.anchor && ref.target.endsWith('.md')) {
          const anchors = headingsOf(readFileSync(ref.target, 'utf8')).map(anchorOf);
          if (!anchors.includes(ref.anchor)) problems.push(`${where}: ${rel(ref.target)} has no heading #${ref.anchor}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it(`keeps each file under ${MAX_LINES} lines`, () => {
    const long = entryFiles
      .map((file) => ({ file: rel(file), lines: readFileSync(file, 'utf8').split('\n').length }))
      .filter((f) => f.lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  it('titles no entry by an issue number, and gives every entry its decision and status', () => {
    const problems: string[] = [];
    for (const file of entryFiles) {
      const text = readFileSync(file, 'utf8');
      for (const title of headingsOf(text)) if (/\bissues?\s*#?\d+/i.test(title)) problems.push(`${rel(file)}: "${title}" names an issue`);
      if (file.endsWith('README.md')) continue;
      for (const entry of text.split(/^## /m).slice(1)) {
        const title = entry.slice(0, entry.indexOf('\n'));
        for (const part of ['**Decision.**', '**Status.**'])
          if (!entry.includes(part)) problems.push(`${rel(file)}: "${title}" has no ${part}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('finds a link to a missing entry, a missing heading and the old log', () => {
    const refs = referencesIn(
      path.join(root, 'README.md'),
      'see docs/decisions/nowhere.md, [x](docs/decisions/runner.md#no-such-heading) and docs/decisions.md',
    );
    expect(refs.map((r) => [rel(r.target), r.anchor])).toEqual([
      ['docs/decisions/nowhere.md', undefined],
      ['docs/decisions/runner.md', 'no-such-heading'],
      ['docs/decisions.md', undefined],
    ]);
    expect(existsSync(refs[0].target)).toBe(false);
    expect(headingsOf(readFileSync(refs[1].target, 'utf8')).map(anchorOf)).not.toContain('no-such-heading');
    expect(anchorOf('The queue belongs to the fleet')).toBe('the-queue-belongs-to-the-fleet');
  });
});
