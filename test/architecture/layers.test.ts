import { createRequire } from 'node:module';
import path from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

// The layering rule of docs/architecture.md, as CI checks it: the real tree has no violation,
// and a probe tree with one import of each forbidden kind has exactly those reported.

const root = path.resolve(import.meta.dirname, '../..');
const config = createRequire(import.meta.url)(path.join(root, '.dependency-cruiser.cjs'));

async function violationsIn(baseDir: string, folders: string[]) {
  const { output } = await cruise(folders, {
    ...config.options,
    baseDir,
    validate: true,
    ruleSet: { forbidden: config.forbidden },
    tsConfig: { fileName: path.join(root, 'tsconfig.json') },
  });
  return (output as ICruiseResult).summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
}

describe('layers', () => {
  it('the platform imports only downwards, and everything imports the contract by name', async () => {
    expect(await violationsIn(root, ['services', 'workers', 'runner', 'test', 'bench', 'infra'])).toEqual([]);
  }, 60_000);

  it('a probe tree with forbidden imports is refused, each for its reason', async () => {
    const probe = path.join(root, 'test/fixtures/layering');
    expect(await violationsIn(probe, ['services'])).toEqual([
      'cli-imports-only-below: services/cli/reads-data.ts -> services/data/rows.sql.ts',
      'contract-browser-safe-imports-no-node-only-file: services/contract/signs-calls.ts -> services/contract/runner/runner-key.ts',
      'contract-browser-safe-imports-no-node: services/contract/reads-disk.ts -> fs',
      'contract-imported-by-name: services/api/contract-by-path.ts -> services/contract/shapes.ts',
      'contract-imported-by-name: services/web/deep-import.ts -> services/contract/shapes.ts',
      'contract-imported-by-name: services/web/runner-key.ts -> services/contract/runner/runner-key.ts',
      'contract-imports-only-below: services/contract/pure.ts -> services/data/rows.sql.ts',
      'core-rules-import-no-infra: services/core/rules/reads-settings.ts -> services/core/infra/settings.ts',
      'room-imports-only-below: services/room/reaches-into-api.ts -> services/api/api-thing.ts',
      'sql-lives-in-data: services/room/uses-own-sql.ts -> services/room/own.sql.ts',
      'web-imports-no-node-only-contract: services/web/runner-key.ts -> services/contract/runner/runner-key.ts',
    ]);
  }, 60_000);
});

describe('web app areas', () => {
  it('an area that imports another area is refused; its own files and src/ui are not', async () => {
    const probe = path.join(root, 'test/fixtures/web-areas');
    expect(await violationsIn(probe, ['services'])).toEqual([
      'web-areas-apart: services/web/src/areas/pipeline/PipelineArea.ts -> services/web/src/areas/brand/colours.ts',
    ]);
  }, 60_000);
});
