import { defineConfig } from 'vitest/config';

// Four lanes, each runnable alone (`npm run test:unit|test:int|test:browser|test:faults`) and all
// of them in `npm test`. Only the unit lane needs no services: infra/local/test.mjs starts none for
// it. The others share one set of real services, so each test makes its own people, workspaces and
// queue names and never cleans up after itself.
const INTEGRATION = ['**/*.int.test.ts', 'test/cli/**/*.test.ts', 'test/platform/**/*.test.ts'];
const BROWSER = ['test/e2e/**/*.test.ts', 'test/web/**/*.test.ts'];
const FAULTS = ['test/faults/**/*.test.ts'];

export default defineConfig({
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
          exclude: ['**/node_modules/**', ...INTEGRATION, ...BROWSER, ...FAULTS],
        },
      },
      { extends: true, test: { name: 'int', include: INTEGRATION, exclude: ['**/node_modules/**'] } },
      { extends: true, test: { name: 'browser', include: BROWSER } },
      { extends: true, test: { name: 'faults', include: FAULTS } },
    ],
  },
});
