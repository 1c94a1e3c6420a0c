import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two files at once even on two cores (Vitest's default would be one): most files wait on the
    // processes and sockets they start (the command line, the emulator, PostgreSQL, git, a browser).
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // A real PostgreSQL server for the state backend's tests, started once per run.
    globalSetup: ['test/setup/postgres.ts'],
  },
});
