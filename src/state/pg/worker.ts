// The PostgreSQL session of a state store, in a worker thread: the store's calls are synchronous,
// so the main thread posts each query here and waits on a shared flag until the answer is posted.

import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import pg from 'pg';

/** What the main thread hands over at start. */
export interface WorkerStart {
  readonly url: string;
  /** Int32 slot 0: set to 1 when an answer is ready; slot 1: set to 1 once the session is lost; slot 2: once it is closed. */
  readonly flags: SharedArrayBuffer;
  readonly port: MessagePort;
  readonly applicationName: string;
}

/** One query: `rowMode: 'array'` answers rows as arrays. */
export interface QueryMessage {
  readonly id: number;
  readonly sql: string;
  readonly params: readonly unknown[];
  readonly rowMode?: 'array';
}

/**
 * Statements run as one transaction (BEGIN … COMMIT) whose caller does not wait: rolled back when
 * one fails, or when the last one changes a number of rows other than `lastChanges`.
 */
export interface BatchMessage {
  readonly id: number;
  readonly batch: readonly { readonly sql: string; readonly params: readonly unknown[] }[];
  readonly lastChanges?: number;
}

export type Answer = { readonly id: number } & (
  | { readonly ok: true; readonly rows: unknown[]; readonly rowCount: number }
  | { readonly ok: false; readonly message: string; readonly code?: string; readonly unexpected?: true }
);

const start = workerData as WorkerStart;
const flags = new Int32Array(start.flags);
/**
 * The driver reads the URL here; a URL it cannot read (which the main thread's check let through)
 * answers every query with why, instead of ending this thread while the main thread waits on it.
 */
function clientOf(): pg.Client | Error {
  try {
    return new pg.Client({ connectionString: start.url, application_name: start.applicationName });
  } catch (err) {
    // The driver's error may quote the URL, which holds the password: only its kind is kept.
    const code = (err as { code?: string }).code;
    return new Error(`the PostgreSQL URL cannot be read by the driver${code ? ` (${code})` : ''}`);
  }
}
const made = clientOf();

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

const client = made instanceof Error ? undefined : made;
// A session that ends or fails holds no lock any more: the main thread stops writing and sending.
client?.on('error', lost);
client?.on('end', lost);

const connected: Promise<pg.Client> = client
  ? client.connect().then(() => {
      connectedOnce = true;
      return client;
    })
  : Promise.reject(made as Error);
// Each query answers a failure to connect; none is left unhandled before the first query comes.
connected.catch(() => undefined);
/** Statement text and values as pg takes them; without values the simple protocol runs, which takes several statements (a migration) in one text. */
const queryOf = (q: { sql: string; params: readonly unknown[]; rowMode?: 'array' }) => ({
  text: q.sql,
  ...(q.params.length > 0 && { values: q.params as unknown[] }),
  ...(q.rowMode && { rowMode: q.rowMode }),
});

const failure = (id: number, err: Error & { code?: string }): Answer => ({ id, ok: false, message: err.message, ...(err.code && { code: err.code }) });

async function runBatch(client: pg.Client, b: BatchMessage): Promise<Answer> {
  await client.query('BEGIN');
  try {
    let last = 0;
    for (const q of b.batch) last = (await client.query(queryOf(q))).rowCount ?? 0;
    if (b.lastChanges !== undefined && last !== b.lastChanges) {
      await client.query('ROLLBACK');
      return { id: b.id, ok: false, message: `the last statement changed ${last} rows, not ${b.lastChanges}`, unexpected: true };
    }
    await client.query('COMMIT');
    return { id: b.id, ok: true, rows: [], rowCount: last };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    return failure(b.id, err as Error);
  }
}

// One message at a time, in order: a batch's statements are never interleaved with a later query.
let tail: Promise<unknown> = Promise.resolve();
start.port.on('message', (q: QueryMessage | BatchMessage | 'close') => {
  if (q === 'close') {
    // The main thread waits for this: the session, and any lock it held, is gone when close returns.
    tail = tail
      .then(() => client?.end().catch(() => undefined))
      .finally(() => {
        Atomics.store(flags, 2, 1);
        Atomics.notify(flags, 2);
        start.port.close();
        parentPort?.close();
      });
    return;
  }
  tail = tail.then(async () => {
    let client: pg.Client;
    try {
      client = await connected;
    } catch (err) {
      return answer(failure(q.id, err as Error));
    }
    if ('batch' in q) return answer(await runBatch(client, q));
    await client.query(queryOf(q)).then(
      (r) => answer({ id: q.id, ok: true, rows: r.rows, rowCount: r.rowCount ?? 0 }),
      (err: Error & { code?: string }) => answer(failure(q.id, err)),
    );
  });
});
