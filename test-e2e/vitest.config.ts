import { defineConfig } from 'vitest/config';

// Browser tests: one file at a time (each starts a service and a Chromium), SQLite only.
export default defineConfig({
  test: {
    include: ['test-e2e/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    maxWorkers: 1,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
