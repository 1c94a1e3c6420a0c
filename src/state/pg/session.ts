// One dedicated PostgreSQL session (a pg.Client on this thread), asynchronous, its queries in the order
// asked; a session that ends, is cut, or stops answering is lost, and any advisory lock it held with it.

import type pg from 'pg';
import { BatchCheckError } from '../sql-db.js';

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

/** The session ended (connection cut, server gone, no answer in time): whatever it held, it holds no more. */
export class PgSessionLostError extends Error {
  override name = 'PgSessionLostError';
}

export interface Rows {
  readonly rows: unknown[];
  readonly rowCount: number;
}

/** A statement of a batch: its text and values. */
export interface BatchStatement {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/**
 * Errors that mean the connection, not the statement, failed: no SQLSTATE (the socket closed, the driver's
 * own error), connection exceptions (class 08), and the server ending the session (57P01–57P05).
 */
function endsSession(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || code.startsWith('08') || /^57P0[1-5]$/.test(code);
}

/** Statement text and values as pg takes them; without values the simple protocol runs, which takes several statements (a migration) in one text. */
const queryOf = (sql: string, params: readonly unknown[], rowMode?: 'array'): pg.QueryConfig & { rowMode?: 'array' } => ({
  text: sql,
  ...(params.length > 0 && { values: params as unknown[] }),
  ...(rowMode && { rowMode }),
});

/** How long closing waits for the queries before it, and then for the server to let the session go. */
const CLOSE_WAIT_MS = 5_000;

/** Once `pending` settled (either way) or `ms` passed, whichever comes first. */
async function settledWithin(pending: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  try {
    await Promise.race([pending.then(noop, noop), late]);
  } finally {
    clearTimeout(timer);
  }
}

const noop = (): void => undefined;

export class PgSession {
  /** Connected once this resolves; rejects with why it could not connect (a message without the URL). */
  private readonly ready: Promise<pg.Client>;
  private client: pg.Client | undefined;
  /** Set once connected: a session that never connected was not lost, its queries answer why. */
  private connected = false;
  private ended = false;
  private closing: Promise<void> | undefined;
  /** The last query or batch asked: each starts after it, so a batch's statements never interleave with a later query. */
  private tail: Promise<unknown> = Promise.resolve();

  /** `shown` names the database in messages (never with its password); `timeoutMs` bounds each answer and the connect. */
  constructor(
    url: string,
    private readonly shown: string,
    private readonly timeoutMs = 60_000,
  ) {
    this.ready = this.connect(url);
    // Each query answers a failure to connect; none is left unhandled before the first query comes.
    this.ready.catch(() => undefined);
  }

  private async connect(url: string): Promise<pg.Client> {
    // Loaded on first use: a SQLite state never pays for the driver.
    const { default: driver } = await import('pg');
    let client: pg.Client;
    try {
      client = new driver.Client({ connectionString: url, application_name: 'edgesync', keepAlive: true, connectionTimeoutMillis: this.timeoutMs });
    } catch (err) {
      // The driver's error may quote the URL, which holds the password: only its kind is kept.
      const code = (err as { code?: string }).code;
      throw new Error(`the PostgreSQL URL cannot be read by the driver${code ? ` (${code})` : ''}`);
    }
    // A session that ends or fails holds no lock any more: the store stops writing and sending.
    client.on('error', () => this.end());
    client.on('end', () => this.end());
    this.client = client;
    await client.connect();
    this.connected = true;
    if (this.closing) this.end();
    return client;
  }

  /** True once the session ended after it connected: its advisory locks are gone with it. */
  get lost(): boolean {
    return this.ended && this.connected && !this.closing;
  }

  /** Runs one statement after every query and batch asked before it. */
  query(sql: string, params: readonly unknown[] = [], rowMode?: 'array'): Promise<Rows> {
    return this.next(async (client) => {
      const r = await this.answer(client.query(queryOf(sql, params, rowMode)));
      return { rows: r.rows, rowCount: r.rowCount ?? 0 };
    });
  }

  /**
   * Runs the statements as one transaction, after every query asked before it and before every one
   * asked after; resolves once committed, rejects when it was rolled back (BatchCheckError when the
   * last statement changed other than `lastChanges` rows).
   */
  batch(statements: readonly BatchStatement[], lastChanges?: number): Promise<void> {
    return this.next(async (client) => {
      const run = (sql: string, params: readonly unknown[] = []) => this.answer(client.query(queryOf(sql, params)));
      await run('BEGIN');
      try {
        let last = 0;
        for (const q of statements) last = (await run(q.sql, q.params)).rowCount ?? 0;
        if (lastChanges !== undefined && last !== lastChanges) throw new BatchCheckError(`the last statement changed ${last} rows, not ${lastChanges}`);
        await run('COMMIT');
      } catch (err) {
        if (!this.ended) await run('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
  }

  /** `task` on the connected client once every task before it settled; refused at once when closed or lost. */
  private next<T>(task: (client: pg.Client) => Promise<T>): Promise<T> {
    if (this.closing) return Promise.reject(new Error(`${this.shown}: the session is closed`));
    if (this.lost) return Promise.reject(this.lostError());
    const result = this.tail.then(async () => {
      if (this.lost) throw this.lostError();
      return task(await this.ready);
    });
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /**
   * The driver's answer, or: PgQueryError (the statement was refused), PgSessionLostError (the
   * connection failed, or no answer came within the timeout: the session is then cut, so that
   * nothing waits on it and its lock is released).
   */
  private async answer<R>(pending: Promise<R>): Promise<R> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.end();
        reject(new PgSessionLostError(`${this.shown}: no answer within ${this.timeoutMs / 1000} s; the session was ended`));
      }, this.timeoutMs);
    });
    try {
      return await Promise.race([pending, late]);
    } catch (err) {
      if (err instanceof PgSessionLostError) throw err;
      const e = err as Error & { code?: string };
      if (this.ended || endsSession(e)) {
        this.end();
        throw new PgSessionLostError(`${this.shown}: the database session was lost (${e.message})`);
      }
      throw new PgQueryError(e.message, e.code);
    } finally {
      clearTimeout(timer);
      // A query that lost the race still settles later: its rejection is not left unhandled.
      pending.catch(() => undefined);
    }
  }

  /** Marks the session ended and cuts its connection; idempotent. */
  private end(): void {
    if (this.ended) return;
    this.ended = true;
    void this.client?.end().catch(() => undefined);
  }

  private lostError(): PgSessionLostError {
    return new PgSessionLostError(`${this.shown}: the database session was lost`);
  }

  /**
   * Ends the session, and with it any advisory lock it held, after the queries and batches asked before
   * (at most 5 s for them, then the connection is cut and they are rejected).
   */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    const settled = this.tail;
    this.closing = (async () => {
      await settledWithin(settled, CLOSE_WAIT_MS);
      const client = this.client;
      this.ended = true;
      // A server that no longer answers may never close the socket: the wait is bounded too.
      if (client) await settledWithin(client.end(), CLOSE_WAIT_MS);
    })();
    return this.closing;
  }
}

/**
 * `fn` on a session of its own, closed after it; for what is used rarely (a token's secret, an
 * approval), so that nothing is held open, nor lost, between uses. Unreachable: one line naming `shown`.
 */
export async function withSession<T>(url: string, shown: string, fn: (session: PgSession) => Promise<T>): Promise<T> {
  const session = new PgSession(url, shown);
  try {
    await reach(session, shown);
    return await fn(session);
  } finally {
    await session.close();
  }
}

/** The first query, whose failure says what to fix: the address, the password, the database. */
export async function reach(session: PgSession, shown: string): Promise<void> {
  try {
    await session.query('SELECT 1');
  } catch (err) {
    const reason = err instanceof Error ? err.message.replace(`${shown}: `, '') : String(err);
    throw new Error(`cannot open ${shown}: ${reason}`);
  }
}

/** `fn`'s queries on `session` as one write transaction: the schema's migration, made before any store uses the session. */
export async function inTransaction<T>(session: PgSession, fn: () => Promise<T>): Promise<T> {
  await session.query('BEGIN');
  try {
    const out = await fn();
    await session.query('COMMIT');
    return out;
  } catch (err) {
    if (!session.lost) await session.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
