import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // A real PostgreSQL server for the state backend's tests, started once per run.
    globalSetup: ['test/setup/postgres.ts'],
  },
});
