import { defineConfig } from 'vitest/config';

// Integration tests share one set of real services (started by infra/local/test.mjs), so each
// test makes its own people, workspaces and queue names and never cleans up after itself.
export default defineConfig({
  test: {
    include: ['services/**/*.test.ts', 'workers/**/*.test.ts', 'runner/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
