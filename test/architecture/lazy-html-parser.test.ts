import { describe, expect, it } from 'vitest';
import { runtimeModules } from './runtime-modules.js';

// The manifest's folder check (contract/manifest/manifest-folder.check.ts, loaded by every
// `pitch validate` and `pitch deploy`) needs an HTML parser only for a static story step with a
// `point`: htmlparser2 and its 30-odd modules are imported there, when such a step is checked, not
// with the check (about 0.04 s of every validate and deploy's start, measured in docs/scale.md,
// "Session 50"). A static import of the parser back in the check's module graph fails here.

describe("the manifest folder check's HTML parser", () => {
  it('is imported only where a story point is checked', async () => {
    const modules = await runtimeModules('services/contract/node.ts');
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
