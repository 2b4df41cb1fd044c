import { defineConfig } from 'vitest/config';

// Four lanes, each runnable alone (`npm run test:unit|test:int|test:browser|test:faults`) and all
// of them in `npm test`; a fifth, `npm run test:kubernetes`, runs the copy engine's promises on the
// cluster KUBECONFIG names (docs/kubernetes.md), and in `npm test` skips with a message without one. Only the unit lane needs no services: infra/local/test.mjs starts none for
// it. The others share one set of real services, so each test makes its own people, workspaces and
// queue names and never cleans up after itself.
const INTEGRATION = ['**/*.int.test.ts', 'test/cli/**/*.test.ts', 'test/platform/**/*.test.ts'];
const BROWSER = ['test/e2e/**/*.test.ts', 'test/web/**/*.test.ts'];
const FAULTS = ['test/faults/**/*.test.ts'];
const KUBERNETES = ['**/*.k8s.test.ts'];

export default defineConfig({
  // `@demo-rooms/contract` and its subpaths from this checkout's sources (tsconfig.json `paths`),
  // not from whatever checkout a shared node_modules links to.
  resolve: { tsconfigPaths: true },
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['services/**/*.test.ts', 'workers/**/*.test.ts', 'runner/**/*.test.ts', 'test/architecture/**/*.test.ts'],
          exclude: ['**/node_modules/**', ...INTEGRATION, ...BROWSER, ...FAULTS, ...KUBERNETES],
        },
      },
      { extends: true, test: { name: 'int', include: INTEGRATION, exclude: ['**/node_modules/**'] } },
      { extends: true, test: { name: 'browser', include: BROWSER } },
      { extends: true, test: { name: 'faults', include: FAULTS } },
      // Pods start in seconds, but a node's first pull of the demo image may take minutes.
      {
        extends: true,
        test: { name: 'kubernetes', include: KUBERNETES, exclude: ['**/node_modules/**'], testTimeout: 300_000, hookTimeout: 600_000 },
      },
    ],
  },
});
