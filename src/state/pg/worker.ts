// The PostgreSQL session of a state store, in a worker thread: the store's calls are synchronous,
// so the main thread posts each query here and waits on a shared flag until the answer is posted.

import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import pg from 'pg';

/** What the main thread hands over at start. */
export interface WorkerStart {
  readonly url: string;
  /** Int32 slot 0: set to 1 when an answer is ready; slot 1: set to 1 once the session is lost. */
  readonly flags: SharedArrayBuffer;
  readonly port: MessagePort;
  readonly applicationName: string;
}

/** One query: `rowMode: 'array'` answers rows as arrays. */
export interface QueryMessage {
  readonly sql: string;
  readonly params: readonly unknown[];
  readonly rowMode?: 'array';
}

export type Answer =
  | { readonly ok: true; readonly rows: unknown[]; readonly rowCount: number }
  | { readonly ok: false; readonly message: string; readonly code?: string };

const start = workerData as WorkerStart;
const flags = new Int32Array(start.flags);
const client = new pg.Client({ connectionString: start.url, application_name: start.applicationName });

function answer(a: Answer): void {
  start.port.postMessage(a);
  Atomics.store(flags, 0, 1);
  Atomics.notify(flags, 0);
}

// Set once connected: a session that never connected was not lost, its queries answer why.
let connectedOnce = false;

function lost(): void {
  if (!connectedOnce) return;
  Atomics.store(flags, 1, 1);
  Atomics.notify(flags, 0);
}

// A session that ends or fails holds no lock any more: the main thread stops writing and sending.
client.on('error', lost);
client.on('end', lost);

const connected = client.connect().then(() => {
  connectedOnce = true;
});
start.port.on('message', (q: QueryMessage | 'close') => {
  if (q === 'close') {
    // The main thread waits for this: the session, and any lock it held, is gone when close returns.
    void client.end().catch(() => undefined).finally(() => {
      Atomics.store(flags, 0, 1);
      Atomics.notify(flags, 0);
      start.port.close();
      parentPort?.close();
    });
    return;
  }
  connected
    // Without values the simple protocol runs, which takes several statements (a migration) in one text.
    .then(() => client.query({ text: q.sql, ...(q.params.length > 0 && { values: q.params as unknown[] }), ...(q.rowMode && { rowMode: q.rowMode }) }))
    .then(
      (r) => answer({ ok: true, rows: r.rows, rowCount: r.rowCount ?? 0 }),
      (err: Error & { code?: string }) => answer({ ok: false, message: err.message, ...(err.code && { code: err.code }) }),
    );
});
