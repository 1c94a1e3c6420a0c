// One dedicated PostgreSQL session, queried synchronously (src/state/pg/database.ts wraps it as the async SqlDatabase): the
// query runs in a worker thread (./worker.ts) while this thread waits on a shared flag.

import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { BatchCheckError } from '../sql-db.js';
import type { Answer, BatchMessage, QueryMessage, WorkerStart } from './worker.js';
import { compiledFile } from '../../util/compiled.js';

/** A query the database refused, with its SQLSTATE code. */
export class PgQueryError extends Error {
  override name = 'PgQueryError';
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** The session ended (connection cut, server gone): whatever it held, it holds no more. */
export class PgSessionLostError extends Error {
  override name = 'PgSessionLostError';
}

/** The compiled worker (see compiledFile). */
function workerFile(): string {
  return compiledFile(new URL('./worker.js', import.meta.url), new URL('../../../dist/state/pg/worker.js', import.meta.url));
}

export interface Rows {
  readonly rows: unknown[];
  readonly rowCount: number;
}

export class PgSession {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly flags: Int32Array;
  private closed = false;
  private nextId = 1;
  /** Batches posted and not answered yet, by id. */
  private readonly pending = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();

  /** `shown` names the database in messages (never with its password). */
  constructor(
    url: string,
    private readonly shown: string,
    private readonly timeoutMs = 60_000,
  ) {
    const flags = new SharedArrayBuffer(12);
    const { port1, port2 } = new MessageChannel();
    const start: WorkerStart = { url, flags, port: port2, applicationName: 'edgesync' };
    this.worker = new Worker(workerFile(), { workerData: start, transferList: [port2] });
    this.worker.unref();
    this.port = port1;
    // Answers of batches come as events when nothing waits synchronously; the port keeps nothing alive.
    this.port.on('message', (a: Answer) => this.settle(a));
    this.port.unref();
    this.flags = new Int32Array(flags);
  }

  /** True once the session ended: its advisory locks are gone with it. */
  get lost(): boolean {
    return Atomics.load(this.flags, 1) === 1;
  }

  /** Runs one statement and waits for its answer (after any batch posted before it: the worker keeps order). */
  query(sql: string, params: readonly unknown[] = [], rowMode?: 'array'): Rows {
    if (this.closed) throw new Error(`${this.shown}: the session is closed`);
    if (this.lost) throw this.lostError();
    const id = this.nextId++;
    const message: QueryMessage = { id, sql, params, ...(rowMode && { rowMode }) };
    this.port.postMessage(message);
    const answer = this.await(id);
    if (!answer.ok) throw new PgQueryError(answer.message, answer.code);
    return { rows: answer.rows, rowCount: answer.rowCount };
  }

  /**
   * Runs the statements as one transaction without waiting for it: resolves once committed, rejects
   * when it was rolled back (BatchCheckError when the last statement changed other than `lastChanges` rows).
   */
  batch(statements: readonly { readonly sql: string; readonly params: readonly unknown[] }[], lastChanges?: number): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`${this.shown}: the session is closed`));
    if (this.lost) return Promise.reject(this.lostError());
    const id = this.nextId++;
    const message: BatchMessage = { id, batch: statements, ...(lastChanges !== undefined && { lastChanges }) };
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // While a batch is unanswered its answer must keep the process alive.
      if (this.pending.size === 1) this.port.ref();
      this.port.postMessage(message);
    });
  }

  /** Waits for the answer `id`, settling the batches answered before it on the way. */
  private await(id: number): Answer {
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      const answer = this.receive();
      if (answer?.id === id) return answer;
      if (answer) {
        this.settle(answer);
        continue;
      }
      if (this.lost) {
        this.rejectPending();
        throw this.lostError();
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${this.shown}: no answer within ${this.timeoutMs / 1000} s`);
      Atomics.wait(this.flags, 0, 0, left);
    }
  }

  /** The next answer posted, if any; else the flag is cleared first, so an answer posted from then on ends the wait. */
  private receive(): Answer | undefined {
    const posted = receiveMessageOnPort(this.port);
    if (posted) return posted.message as Answer;
    Atomics.store(this.flags, 0, 0);
    return receiveMessageOnPort(this.port)?.message as Answer | undefined;
  }

  private settle(answer: Answer): void {
    const waiter = this.pending.get(answer.id);
    if (!waiter) return;
    this.pending.delete(answer.id);
    if (this.pending.size === 0) this.port.unref();
    if (answer.ok) waiter.resolve();
    else waiter.reject(answer.unexpected ? new BatchCheckError(answer.message) : new PgQueryError(answer.message, answer.code));
  }

  private rejectPending(): void {
    for (const [id, waiter] of this.pending) {
      this.pending.delete(id);
      waiter.reject(this.lostError());
    }
    this.port.unref();
  }

  private lostError(): PgSessionLostError {
    return new PgSessionLostError(`${this.shown}: the database session was lost`);
  }

  /** Ends the session, and with it any advisory lock it held, before returning (at most 5 s); batches not answered by then are rejected. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.port.postMessage('close');
    // The worker ends the session after every message before 'close', whose answers come first.
    Atomics.wait(this.flags, 2, 0, 5_000);
    let received: ReturnType<typeof receiveMessageOnPort>;
    while ((received = receiveMessageOnPort(this.port))) this.settle(received.message as Answer);
    this.rejectPending();
    this.port.close();
  }
}

/**
 * `fn` on a session of its own, closed after it; for what is used rarely (a token's secret, an
 * approval), so that nothing is held open, nor lost, between uses. Unreachable: one line naming `shown`.
 */
export function withSession<T>(url: string, shown: string, fn: (session: PgSession) => T): T {
  const session = new PgSession(url, shown);
  try {
    try {
      session.query('SELECT 1');
    } catch (err) {
      throw new Error(`cannot open ${shown}: ${err instanceof Error ? err.message : String(err)}`);
    }
    return fn(session);
  } finally {
    session.close();
  }
}

/** `fn`'s queries on `session` as one write transaction, waited for: the schema's migration, made before any store uses the session. */
export function inTransaction<T>(session: PgSession, fn: () => T): T {
  session.query('BEGIN');
  try {
    const out = fn();
    session.query('COMMIT');
    return out;
  } catch (err) {
    if (!session.lost) session.query('ROLLBACK');
    throw err;
  }
}
