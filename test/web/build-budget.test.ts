import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { sourcesHash } from '../../infra/local/web-app.mjs';

// The first page's JavaScript stays under 200 KB compressed (issue 21): the entry chunk and every
// chunk it imports statically, gzip -9 as the api serves them (brotli is smaller still). Areas
// load later, on their own. `npm test` builds the app first, so this is today's build.

const dist = new URL('../../services/web/dist/', import.meta.url);
const BUDGET = 200 * 1024;

interface Chunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}

it('is the build of the sources as they are now', () => {
  expect(readFileSync(new URL('.sources-hash', dist), 'utf8')).toBe(sourcesHash());
});

it("keeps the first page's JavaScript under 200 KB compressed", () => {
  const manifest = JSON.parse(readFileSync(new URL('.vite/manifest.json', dist), 'utf8')) as Record<string, Chunk>;
  const entry = Object.entries(manifest).find(([, c]) => c.isEntry);
  expect(entry).toBeDefined();
  const first = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (first.has(chunk.file)) return;
    first.add(chunk.file);
    for (const dep of chunk.imports ?? []) visit(dep);
  };
  visit(entry![0]);
  const sizes = [...first].map((file) => ({ file, gzip: gzipSync(readFileSync(new URL(file, dist)), { level: 9 }).length }));
  const total = sizes.reduce((sum, s) => sum + s.gzip, 0);
  console.log(
    `first page JavaScript: ${(total / 1024).toFixed(1)} KB gzip of ${BUDGET / 1024} KB (${sizes.map((s) => `${s.file} ${(s.gzip / 1024).toFixed(1)} KB`).join(', ')})`,
  );
  expect(total).toBeLessThan(BUDGET);
  // Areas are chunks of their own: the first page does not carry the charts or the board.
  expect(Object.values(manifest).some((c) => c.dynamicImports?.length)).toBe(true);
});
