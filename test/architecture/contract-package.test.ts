import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// `@demo-rooms/contract` resolves two ways (docs/decisions/contract-package.md): from sources
// through tsconfig.json `paths` (tsc, tsx, vitest, dependency-cruiser, knip), compiled through the
// package's `exports` (plain node in dist/ and the image). Both must name the same entries, each
// export's `types` the .ts source and its `default` the .js tsc emits from it.

const root = path.resolve(import.meta.dirname, '../..');
const NAME = '@demo-rooms/contract';
const manifest = JSON.parse(readFileSync(path.join(root, 'services/contract/package.json'), 'utf8'));
const tsconfig = ts.parseConfigFileTextToJson('tsconfig.json', readFileSync(path.join(root, 'tsconfig.json'), 'utf8')).config;
const exportsMap = manifest.exports as Record<string, { types: string; default: string }>;

describe('the contract package', () => {
  it('each export names a .ts source for types and the .js tsc emits from it as default', () => {
    for (const [subpath, target] of Object.entries(exportsMap)) {
      expect(Object.keys(target), subpath).toEqual(['types', 'default']);
      expect(target.types, subpath).toMatch(/^\.\/.+\.ts$/);
      expect(target.default, subpath).toBe(target.types.replace(/\.ts$/, '.js'));
    }
  });

  it("tsconfig.json's paths name exactly the exported entries, at their sources", () => {
    const paths = Object.entries(tsconfig.compilerOptions.paths as Record<string, string[]>).filter(([key]) => key.startsWith(NAME));
    const expected = Object.entries(exportsMap).map(([subpath, target]) => [
      NAME + subpath.slice(1),
      [`./services/contract/${target.types.slice(2)}`],
    ]);
    expect(Object.fromEntries(paths)).toEqual(Object.fromEntries(expected));
  });

  it('the browser builds map the entries they use to the same sources', () => {
    for (const file of ['services/web/tsconfig.json', 'services/room/tsconfig.browser.json']) {
      const config = ts.parseConfigFileTextToJson(file, readFileSync(path.join(root, file), 'utf8')).config;
      const paths = Object.entries(config.compilerOptions.paths as Record<string, string[]>);
      expect(paths.length, file).toBeGreaterThan(0);
      for (const [key, [target]] of paths) {
        const source = exportsMap[`.${key.slice(NAME.length)}`]?.types;
        expect(source, `${file}: ${key}`).toBeDefined();
        expect(path.resolve(root, path.dirname(file), target), `${file}: ${key}`).toBe(path.join(root, 'services/contract', source));
      }
    }
  });
});
