// One dedicated PostgreSQL session, queried synchronously as the state store's contract asks: the
// query runs in a worker thread (./worker.ts) while this thread waits on a shared flag.

import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { Answer, QueryMessage, WorkerStart } from './worker.js';

/** A query the database refused, with its SQLSTATE code. */
export class PgQueryError extends Error {
  override name = 'PgQueryError';
  constructor(message: string, readonly code?: string) {
    super(message);
  }
}

/** The session ended (connection cut, server gone): whatever it held, it holds no more. */
export class PgSessionLostError extends Error {
  override name = 'PgSessionLostError';
}

/** The compiled worker beside this file, else (running from the sources, as tests do) the one under dist/. */
function workerFile(): string {
  const beside = fileURLToPath(new URL('./worker.js', import.meta.url));
  if (fs.existsSync(beside)) return beside;
  return fileURLToPath(new URL('../../../dist/state/pg/worker.js', import.meta.url));
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

  /** `shown` names the database in messages (never with its password). */
  constructor(url: string, private readonly shown: string, private readonly timeoutMs = 60_000) {
    const flags = new SharedArrayBuffer(8);
    const { port1, port2 } = new MessageChannel();
    const start: WorkerStart = { url, flags, port: port2, applicationName: 'edgesync' };
    this.worker = new Worker(workerFile(), { workerData: start, transferList: [port2] });
    this.worker.unref();
    this.port = port1;
    this.flags = new Int32Array(flags);
  }

  /** True once the session ended: its advisory locks are gone with it. */
  get lost(): boolean {
    return Atomics.load(this.flags, 1) === 1;
  }

  /** Runs one statement and waits for its answer. */
  query(sql: string, params: readonly unknown[] = [], rowMode?: 'array'): Rows {
    if (this.closed) throw new Error(`${this.shown}: the session is closed`);
    if (this.lost) throw new PgSessionLostError(`${this.shown}: the database session was lost`);
    Atomics.store(this.flags, 0, 0);
    const message: QueryMessage = { sql, params, ...(rowMode && { rowMode }) };
    this.port.postMessage(message);
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      const waited = Atomics.wait(this.flags, 0, 0, Math.max(1, deadline - Date.now()));
      const received = receiveMessageOnPort(this.port);
      if (received) {
        const answer = received.message as Answer;
        if (!answer.ok) throw new PgQueryError(answer.message, answer.code);
        return { rows: answer.rows, rowCount: answer.rowCount };
      }
      if (this.lost) throw new PgSessionLostError(`${this.shown}: the database session was lost`);
      if (waited === 'timed-out' || Date.now() >= deadline) throw new Error(`${this.shown}: no answer within ${this.timeoutMs / 1000} s`);
    }
  }

  /** Ends the session, and with it any advisory lock it holds, before returning (at most 5 s). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    Atomics.store(this.flags, 0, 0);
    this.port.postMessage('close');
    Atomics.wait(this.flags, 0, 0, 5_000);
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
