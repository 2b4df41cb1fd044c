import { createRequire } from 'node:module';
import path from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

// The manifest's folder check (contract/manifest/manifest-folder.check.ts, loaded by every
// `pitch validate` and `pitch deploy`) needs an HTML parser only for a static story step with a
// `point`: htmlparser2 and its 30-odd modules are imported there, when such a step is checked, not
// with the check (about 0.04 s of every validate and deploy's start, measured in docs/scale.md,
// "Session 50"). A static import of the parser back in the check's module graph fails here.

const root = path.resolve(import.meta.dirname, '../..');
const config = createRequire(import.meta.url)(path.join(root, '.dependency-cruiser.cjs'));

describe("the manifest folder check's HTML parser", () => {
  it('is imported only where a story point is checked', async () => {
    const { output } = await cruise(['services/contract/node.ts'], {
      ...config.options,
      baseDir: root,
      tsPreCompilationDeps: false,
      tsConfig: { fileName: path.join(root, 'tsconfig.json') },
    });
    const modules = (output as ICruiseResult).modules;
    const check = modules.find((module) => module.source === 'services/contract/manifest/manifest-folder.check.ts');
    // The cruise reached the check (one that found nothing proves nothing).
    expect(check).toBeDefined();
    const toSelector = check!.dependencies.filter((dep) => dep.resolved === 'services/contract/manifest/point-selector.ts');
    expect(toSelector).toHaveLength(1);
    expect(toSelector[0].dynamic).toBe(true);
    // And nothing else the check's entry loads statically reaches the parser.
    const staticToParser = modules.flatMap((module) =>
      module.source === 'services/contract/manifest/point-selector.ts'
        ? []
        : module.dependencies.filter((dep) => !dep.dynamic && dep.resolved.includes('node_modules/htmlparser2/')),
    );
    expect(staticToParser).toEqual([]);
  }, 60_000);
});
