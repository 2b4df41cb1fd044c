import { expect, it } from 'vitest';
import { baseReferences } from './build-inputs.js';
import { layeringNote } from './layering-note.js';
import type { BuildContext } from './build-context.js';

it("names each FROM's base image once, leaving out stages named earlier and scratch", () => {
  const dockerfile = [
    'FROM --platform=linux/amd64 node:24 AS deps',
    'FROM deps AS code',
    'FROM scratch AS empty',
    'from localhost/demo-node:24',
    'COPY --from=code /app ./',
  ].join('\n');
  expect(baseReferences(dockerfile)).toEqual(['node:24', 'localhost/demo-node:24']);
});

const context = (paths: [string, number][]): BuildContext => ({
  dir: '/x',
  entries: paths.map(([path, size]) => ({ path, type: 'file' as const, mode: 0o644, size })),
  bytes: paths.reduce((sum, [, size]) => sum + size, 0),
  excludedBytes: 0,
});

it('notes a COPY . . only while the context carries node_modules, with its size and line', () => {
  const copyAll = 'FROM localhost/demo-node:24\nWORKDIR /app\nCOPY --chown=1000:1000 . .\nCMD ["node", "server.js"]\n';
  const withModules = context([
    ['server.js', 100],
    ['node_modules/dep/index.js', 3 * 1024 * 1024],
  ]);
  expect(layeringNote(copyAll, withModules)).toMatch(
    /^the Dockerfile's line 3 copies the whole folder, node_modules \(3\.0 MB\) with the code: each change resends 3\.0 MB\./,
  );
  expect(layeringNote(copyAll, context([['server.js', 100]]))).toBeNull();
  expect(layeringNote('FROM x\nCOPY server.js ./\nCOPY node_modules ./node_modules\n', withModules)).toBeNull();
});
